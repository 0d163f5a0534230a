import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type OpenDatabase } from '../../src/db/open.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { citadelMigrations } from '../../src/app/assembly.ts';
import { defaultPlugins } from '../../src/auth/index.ts';
import type { CitadelMigration } from '../../src/db/migrations/types.ts';
import { createTestDatabase, testDialect, type TestDatabase } from '../support/databases.ts';

describe('migrations', () => {
  let database: TestDatabase | undefined;
  let open: OpenDatabase | undefined;
  afterEach(async () => {
    await open?.close();
    await database?.drop();
    open = undefined;
    database = undefined;
  });

  async function fresh(): Promise<OpenDatabase> {
    database = await createTestDatabase();
    open = await openDatabase(database.url);
    return open;
  }

  const tables = async (db: OpenDatabase) => (await db.db.introspection.getTables()).map((t) => t.name);

  it('apply once; a second run has nothing to do', async () => {
    const db = await fresh();
    const first = await migrateToLatest(db.db, db.dialect, citadelMigrations(defaultPlugins()));
    expect(first.applied).toContain('0000_core');
    expect(await tables(db)).toEqual(
      expect.arrayContaining(['users', 'sessions', 'remember_tokens', 'rate_limits']),
    );
    expect((await migrateToLatest(db.db, db.dialect, citadelMigrations(defaultPlugins()))).applied).toEqual(
      [],
    );
  });

  const good: CitadelMigration = {
    name: '9000_good',
    async up(db) {
      await db.schema.createTable('migration_probe').addColumn('id', 'integer').execute();
    },
  };
  const bad: CitadelMigration = {
    name: '9001_bad',
    async up() {
      throw new Error('boom');
    },
  };

  it('a failing migration names itself', async () => {
    const db = await fresh();
    await expect(migrateToLatest(db.db, db.dialect, [good, bad])).rejects.toThrow(
      'migration 9001_bad failed: boom',
    );
  });

  // MySQL cannot roll DDL back; SQLite (under our write lock) and PostgreSQL can.
  it.skipIf(testDialect() === 'mysql')('a failed run leaves nothing half-applied', async () => {
    const db = await fresh();
    await expect(migrateToLatest(db.db, db.dialect, [good, bad])).rejects.toThrow();
    expect(await tables(db)).not.toContain('migration_probe');
    // And the next run starts from a clean slate.
    expect((await migrateToLatest(db.db, db.dialect, [good])).applied).toEqual(['9000_good']);
  });
});
