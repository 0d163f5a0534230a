import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';
import { createTestDatabase, testDialect, type TestDatabase } from '../support/databases.ts';
import { freePort, redisAvailable, startRedis, stopProcess } from '../support/processes.ts';
import { TcpProxy } from '../support/tcp-proxy.ts';
import { RECENT_ROW_MS } from '../../src/db/recent-rows.ts';

/** Retry `request` until it answers `status` (pools reconnect in their own time). */
async function until(request: () => Promise<number>, status: number, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  let last = 0;
  while (Date.now() < deadline) {
    last = await request();
    if (last === status) return last;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return last;
}

describe.skipIf(testDialect() === 'sqlite')('a database outage while running', () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let t: TestApp;
  beforeAll(async () => {
    database = await createTestDatabase();
    const real = new URL(database.url);
    proxy = await new TcpProxy(real.hostname, Number(real.port)).start();
    t = await startTestApp({ sharedDatabase: database, databaseUrl: proxy.via(database.url) });
  });
  afterAll(async () => {
    proxy?.restore();
    await t?.close();
    await database?.drop();
    await proxy?.stop();
  });

  it('answers 503 (never 500, no driver message) and recovers by itself', async () => {
    const user = await t.createUser();
    const client = await t.signIn(user);
    expect((await client.get('/me')).status).toBe(200);

    proxy.cut();
    // The session read a moment ago is answered from memory for a second: ask after it.
    await new Promise((resolve) => setTimeout(resolve, RECENT_ROW_MS + 50));
    const down = await client.get('/me');
    expect(down.status).toBe(503);
    expect(down.body).toMatchObject({ statusCode: 503, status: 'error' });
    expect(down.text).not.toMatch(/ECONN|terminated|127\.0\.0\.1|select/i);

    proxy.restore();
    expect(await until(async () => (await client.get('/me')).status, 200)).toBe(200);
  });
});

describe.runIf(await redisAvailable())('a Redis outage while running', () => {
  let redisPort: number;
  let redis: ChildProcess | undefined;
  let t: TestApp;
  beforeAll(async () => {
    redisPort = await freePort();
    redis = await startRedis(redisPort);
    t = await startTestApp({ redisUrl: `redis://127.0.0.1:${redisPort}` });
  });
  afterAll(async () => {
    await t?.close();
    await stopProcess(redis);
  });

  it('answers 503 for session requests and recovers when Redis is back', async () => {
    const user = await t.createUser();
    const client = await t.signIn(user);
    expect((await client.get('/me')).status).toBe(200);

    await stopProcess(redis);
    const down = await client.get('/me');
    expect(down.status).toBe(503);
    expect(down.text).not.toMatch(/ECONN|retries|127\.0\.0\.1/i);

    redis = await startRedis(redisPort);
    // The sessions lived in the stopped server: the client is anonymous now, but served again.
    expect(await until(async () => (await client.get('/me')).status, 401)).toBe(401);
  });
});
