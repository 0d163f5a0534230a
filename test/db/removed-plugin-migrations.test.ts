import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultPlugins, organizations } from '../../src/index.ts';
import { createTestDatabase, type TestDatabase } from '../support/databases.ts';
import { startTestApp } from '../support/app.ts';

/*
 * A plugin taken out of the configuration leaves its executed migrations in `citadel_migrations`:
 * the server still starts (Kysely alone stops with "previously executed migration … is missing"),
 * the plugin's tables and rows stay, and putting the plugin back runs none of its migrations again.
 */
describe('a database that ran the migrations of a plugin no longer configured', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => database?.drop());

  const withOrganizations = () => [...defaultPlugins(), organizations()];

  it('starts without the plugin, keeps its tables and rows, and takes it back without running it again', async () => {
    const first = await startTestApp({ sharedDatabase: database, plugins: withOrganizations() });
    const owner = await first.signIn(await first.createUser());
    const created = await owner.post('/organizations', { name: 'Kept' });
    expect(created.status, created.text).toBe(201);
    const id = created.body.data.organization.id as number;
    await first.close();

    const without = await startTestApp({ sharedDatabase: database, plugins: defaultPlugins() });
    try {
      expect((await without.client().get('/organizations')).status).toBe(404);
      const tables = (await without.services.db.introspection.getTables()).map((table) => table.name);
      expect(tables).toContain('organizations');
    } finally {
      await without.close();
    }

    const back = await startTestApp({ sharedDatabase: database, plugins: withOrganizations() });
    try {
      const executed = await back.services.db
        .selectFrom('citadel_migrations' as never)
        .select('name' as never)
        .execute();
      const names = executed.map((row) => (row as { name: string }).name);
      // Each migration recorded once: none ran a second time.
      expect(new Set(names).size).toBe(names.length);
      const row = await back.services.db
        .selectFrom('organizations')
        .select('name')
        .where('id', '=', id)
        .executeTakeFirst();
      expect(row?.name).toBe('Kept');
    } finally {
      await back.close();
    }
  });
});
