/**
 * Found by the real-restart test: when the database goes away after a request changed its session,
 * the session's write-back (an onSend hook) fails too. That second error reached Fastify's
 * last-resort handler, which answered with the driver's message ("connect ECONNREFUSED
 * 127.0.0.1:PORT"). The database is cut through a TCP proxy by the route itself, so the moment is
 * exact: an answer that is already a 503 goes out as it is; a success whose session was not kept
 * becomes a 503; neither shows the driver's words.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';
import { createTestDatabase, testDialect, type TestDatabase } from '../support/databases.ts';
import { TcpProxy } from '../support/tcp-proxy.ts';

describe.skipIf(testDialect() === 'sqlite')('session write-back during a database outage', () => {
  let t: TestApp;
  let proxy: TcpProxy;
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
    const target = new URL(database.url);
    proxy = await new TcpProxy(target.hostname, Number(target.port)).start();
    t = await startTestApp({
      databaseUrl: proxy.via(database.url),
      sharedDatabase: database,
      routes(app) {
        // Changes the session, then loses the database and still needs it: a 503 from the handler.
        app.get('/test/outage-in-handler', async (request) => {
          request.session.set('seen', true);
          proxy.cut();
          await sql`SELECT 1`.execute(request.server.db);
          return { ok: true };
        });
        // Changes the session and answers; the database is gone before the session is written.
        app.get('/test/outage-after-handler', async (request) => {
          request.session.set('seen', true);
          proxy.cut();
          return { ok: true };
        });
      },
    });
  });
  afterAll(async () => {
    await t?.close();
    await proxy?.stop();
    await database?.drop();
  });

  for (const path of ['/test/outage-in-handler', '/test/outage-after-handler']) {
    it(`${path}: 503 with Retry-After, no driver message`, async () => {
      proxy.restore();
      const answer = await t.client().get(path);
      proxy.restore();
      expect(answer.status, answer.text).toBe(503);
      expect(answer.headers['retry-after']).toBeDefined();
      expect(answer.text).not.toMatch(/ECONN|127\.0\.0\.1|terminated|Connection|stack/i);
      expect(answer.headers['set-cookie'] ?? '').not.toMatch(/citadel_session=[^;]/);
    });
  }
});
