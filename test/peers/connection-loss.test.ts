import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { POSTGRES_ADMIN_URL, testDialect } from '../helpers/databases.ts';

/**
 * A PostgreSQL server that ends the pool's idle connections (a restart, a failover, an
 * administrator) must not take the process down: the pool drops them and opens new ones.
 */
describe.skipIf(testDialect() !== 'postgres')('PostgreSQL connections cut under an idle server', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t?.close());

  it('keeps serving after its idle connections are terminated', async () => {
    const user = await t.createUser();
    const client = await t.signIn(user);
    expect((await client.get('/me')).status).toBe(200);

    const database = new URL(t.database.url).pathname.slice(1);
    const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
    await admin.connect();
    const { rows } = await admin.query(
      'SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
      [database],
    );
    await admin.end();
    expect(rows[0].n).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 200));

    const me = await client.get('/me');
    expect(me.status).toBe(200);
    expect(me.body.user.id).toBe(user.id);
  });
});
