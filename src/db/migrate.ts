import {
  Migrator,
  sql,
  type Kysely,
  type Migration,
  type MigrationProvider,
  type MigrationResultSet,
} from 'kysely';
import type { CitadelMigration } from './migrations/types.ts';
import type { Dialect } from './url.ts';

export interface MigrationReport {
  applied: string[];
  /** Migrations the database ran that no configured plugin brings any more (left as they are). */
  absent: string[];
}

const MIGRATION_TABLE = 'citadel_migrations';

/**
 * Apply every pending migration in name order. Throws with the failing migration's name.
 * Migrations the database ran earlier that are no longer given (a plugin removed from the
 * configuration) are kept as done: their tables stay, nothing runs, and adding the plugin back
 * runs only its migrations the database has not seen.
 */
export async function migrateToLatest(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations work below the typed schema
  db: Kysely<any>,
  dialect: Dialect,
  migrations: readonly CitadelMigration[],
): Promise<MigrationReport> {
  const byName: Record<string, Migration> = {};
  for (const m of migrations) {
    if (byName[m.name]) throw new Error(`two migrations are named ${m.name}`);
    byName[m.name] = {
      up: (tx) => m.up(tx, dialect),
      down: m.down ? (tx) => m.down!(tx, dialect) : undefined,
    };
  }
  const absent: string[] = [];
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- same untyped handle as above
  const migrate = async (on: Kysely<any>) => {
    // Kysely refuses a run when an executed migration is not provided ("previously executed
    // migration … is missing"): each one stands in as already done (never run again).
    absent.push(...(await executedMigrations(on)).filter((name) => !(name in byName)));
    const provided: Record<string, Migration> = { ...byName };
    for (const name of absent)
      provided[name] = { up: () => Promise.reject(new Error(`${name} ran already`)) };
    const provider: MigrationProvider = { getMigrations: async () => provided };
    return new Migrator({
      db: on,
      provider,
      migrationTableName: MIGRATION_TABLE,
      migrationLockTableName: 'citadel_migrations_lock',
      allowUnorderedMigrations: true,
    }).migrateToLatest();
  };
  const { error, results } = await (dialect === 'sqlite' ? underSqliteWriteLock(db, migrate) : migrate(db));
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    // No migration ran (for example the database is unreachable): the driver's error as it is, so
    // the command line can recognise its code and say "could not connect".
    if (!failed) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`migration ${failed.migrationName} failed: ${reason}`, { cause: error });
  }
  return {
    applied: (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName),
    absent,
  };
}

/** The names of the migrations the database ran; none before the first run made the table. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- same untyped handle as above
async function executedMigrations(on: Kysely<any>): Promise<string[]> {
  const tables = await on.introspection.getTables();
  if (!tables.some((table) => table.name === MIGRATION_TABLE)) return [];
  const rows = await on.selectFrom(MIGRATION_TABLE).select('name').execute();
  return rows.map((row: { name: string }) => row.name);
}

/**
 * Kysely takes no migration lock on SQLite (it assumes one process), but several processes may
 * start on one file at once. BEGIN IMMEDIATE takes the file's write lock up front (waiting up to the
 * busy timeout), so the others wait and then find the migrations applied; it also makes the whole
 * run atomic. Every migration statement runs on the one connection that holds the lock.
 */
async function underSqliteWriteLock<T extends MigrationResultSet>(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- same untyped handle as above
  db: Kysely<any>,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- same untyped handle as above
  run: (connection: Kysely<any>) => Promise<T>,
): Promise<T> {
  // One connection for the whole run: the lock, every migration statement and the commit.
  return db.connection().execute(async (connection) => {
    await sql`begin immediate`.execute(connection);
    try {
      const result = await run(connection);
      // Kysely reports a failed migration in the result instead of throwing: undo the whole run.
      await sql.raw(result.error ? 'rollback' : 'commit').execute(connection);
      return result;
    } catch (error) {
      await sql`rollback`.execute(connection).catch(() => undefined);
      throw error;
    }
  });
}
