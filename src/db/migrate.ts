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
}

/** Apply every pending migration in name order. Throws with the failing migration's name. */
export async function migrateToLatest(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations work below the typed schema
  db: Kysely<any>,
  dialect: Dialect,
  migrations: readonly CitadelMigration[],
): Promise<MigrationReport> {
  const provider: MigrationProvider = {
    async getMigrations() {
      const byName: Record<string, Migration> = {};
      for (const m of migrations) {
        if (byName[m.name]) throw new Error(`two migrations are named ${m.name}`);
        byName[m.name] = {
          up: (tx) => m.up(tx, dialect),
          down: m.down ? (tx) => m.down!(tx, dialect) : undefined,
        };
      }
      return byName;
    },
  };
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- same untyped handle as above
  const migrator = (on: Kysely<any>) =>
    new Migrator({
      db: on,
      provider,
      migrationTableName: 'citadel_migrations',
      migrationLockTableName: 'citadel_migrations_lock',
      allowUnorderedMigrations: true,
    });
  const { error, results } = await (dialect === 'sqlite'
    ? underSqliteWriteLock(db, (connection) => migrator(connection).migrateToLatest())
    : migrator(db).migrateToLatest());
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    // No migration ran (for example the database is unreachable): the driver's error as it is, so
    // the command line can recognise its code and say "could not connect".
    if (!failed) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`migration ${failed.migrationName} failed: ${reason}`, { cause: error });
  }
  return { applied: (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName) };
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
