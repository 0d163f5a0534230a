import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

/** Lower-case words joined by underscores: the file name and the migration name stay portable. */
const NAME = /^[a-z][a-z0-9_]{0,80}$/;

export class MakeMigrationError extends Error {}

/**
 * Migration names start with a UTC timestamp (`20261124093000_create_notes`): they sort after
 * Citadel's own (whose names start with 0) and after the application's earlier ones.
 */
export function migrationName(name: string, now: Date): string {
  const stamp = now.toISOString().replace(/\D/g, '').slice(0, 14);
  return `${stamp}_${name}`;
}

/** The commented skeleton of an application migration: a table with an id and a timestamp. */
export function migrationSkeleton(fullName: string, name: string): string {
  const table = name.replace(/^create_/, '').replace(/_table$/, '') || 'items';
  return `import { idColumn, TIMESTAMP, type CitadelMigration } from 'citadel/migrations';

/**
 * ${fullName}: add it to \`migrations: [...]\` in citadel.config.ts (or the options of
 * createServer()). \`citadel migrate\` and \`citadel serve\` apply it once, after Citadel's own tables.
 */
const migration: CitadelMigration = {
  name: '${fullName}',
  async up(db, dialect) {
    // idColumn: an auto-increment integer key on every dialect. Timestamps are ISO 8601 strings.
    await idColumn(db.schema.createTable('${table}'), dialect)
      .addColumn('created_at', TIMESTAMP, (c) => c.notNull())
      .execute();
  },
  async down(db) {
    await db.schema.dropTable('${table}').execute();
  },
};

export default migration;
`;
}

/** Write `<dir>/<timestamp>_<name>.ts`; refuses a bad name and never overwrites a file. */
export async function makeMigration(
  name: string,
  dir: string,
  print: (line: string) => void = console.log,
  now = new Date(),
): Promise<string> {
  if (!NAME.test(name)) {
    throw new MakeMigrationError(
      `"${name}" is not a migration name: lower-case letters, digits and _, starting with a letter`,
    );
  }
  const fullName = migrationName(name, now);
  const folder = resolve(dir);
  await mkdir(folder, { recursive: true });
  const path = join(folder, `${fullName}.ts`);
  try {
    await writeFile(path, migrationSkeleton(fullName, name), { flag: 'wx' });
  } catch (error) {
    if ((error as { code?: string }).code === 'EEXIST')
      throw new MakeMigrationError(`${path} already exists`);
    throw error;
  }
  print(`created ${path}`);
  return path;
}
