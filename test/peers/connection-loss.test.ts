import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';
import { POSTGRES_ADMIN_URL, testDialect } from '../support/databases.ts';

const METRICS_TOKEN = 'metrics-token-0123456789abcdef';

/**
 * A PostgreSQL server that ends the pool's idle connections (a restart, a failover, an
 * administrator) must not take the process down: the pool drops them and opens new ones.
 */
describe.skipIf(testDialect() !== 'postgres')('PostgreSQL connections cut under an idle server', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ metricsToken: METRICS_TOKEN });
  });
  afterAll(async () => t?.close());

  /** The pool's open connections, as GET /metrics reports them. */
  async function poolTotal(): Promise<number> {
    const metrics = await t.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    });
    const total = /^citadel_db_pool_connections\{state="total"\} (\d+)$/m.exec(metrics.body)?.[1];
    if (total === undefined) throw new Error(`no pool gauge in /metrics: ${metrics.statusCode}`);
    return Number(total);
  }

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
    // The pool has noticed: every terminated connection is dropped (polled, no fixed wait).
    const deadline = Date.now() + 10_000;
    while ((await poolTotal()) > 0) {
      expect(Date.now(), 'the pool kept a terminated connection').toBeLessThan(deadline);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }

    const me = await client.get('/me');
    expect(me.status).toBe(200);
    expect(me.body.user.id).toBe(user.id);
  });
});
