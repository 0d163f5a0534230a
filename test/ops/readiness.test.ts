import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';
import { createTestDatabase, testDialect, type TestDatabase } from '../support/databases.ts';
import { freePort, redisAvailable, startRedis, stopProcess } from '../support/processes.ts';
import { TcpProxy } from '../support/tcp-proxy.ts';

/** Poll GET /readyz until it answers `status` (the pools reconnect in their own time). */
async function readyzUntil(t: TestApp, status: number, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await t.app.inject({ method: 'GET', url: '/readyz' });
    if (response.statusCode === status || Date.now() > deadline) return response;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('GET /healthz and GET /readyz', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t?.close());

  it('healthz answers 200 {status: ok} and reads no session', async () => {
    const response = await t.app.inject({
      method: 'GET',
      url: '/healthz',
      // A bearer header would be a 401 on any route that resolves a caller.
      headers: { authorization: 'Bearer not-a-token', cookie: 'citadel_session=whatever' },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ok' });
    expect(response.headers['set-cookie']).toBeUndefined();
  });

  it('readyz answers 200 naming the database as checked', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ok', checks: { database: 'ok' } });
    expect(response.headers['cache-control']).toBe('no-store');
  });
});

// SQLite is a file in the process: there is no server to lose.
describe.skipIf(testDialect() === 'sqlite')('readiness follows the database server', () => {
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

  it('503 naming the database while it is unreachable, 200 again once it returns', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);

    proxy.cut();
    const down = await readyzUntil(t, 503);
    expect(down.statusCode).toBe(503);
    expect(down.json()).toMatchObject({ status: 'unavailable', failed: ['database'] });
    expect(down.json().checks.database).toMatch(/^(error|timeout)$/);
    // Only the name and the kind of failure: no driver message, host or address.
    expect(down.body).not.toMatch(/127\.0\.0\.1|ECONN|password|select/i);
    expect((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);

    proxy.restore();
    const up = await readyzUntil(t, 200);
    expect(up.statusCode).toBe(200);
    expect(up.json()).toEqual({ status: 'ok', checks: { database: 'ok' } });
  });
});

describe.runIf(await redisAvailable())('readiness follows Redis', () => {
  let redisPort: number;
  let redis: ChildProcess | undefined;
  let proxy: TcpProxy;
  let t: TestApp;
  beforeAll(async () => {
    redisPort = await freePort();
    redis = await startRedis(redisPort);
    proxy = await new TcpProxy('127.0.0.1', redisPort).start();
    t = await startTestApp({ redisUrl: `redis://127.0.0.1:${proxy.port}` });
  });
  afterAll(async () => {
    await t?.close();
    await proxy?.stop();
    await stopProcess(redis);
  });

  it('503 naming Redis while it is stopped, 200 again once it is back', async () => {
    const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ status: 'ok', checks: { database: 'ok', redis: 'ok' } });

    await stopProcess(redis);
    const down = await readyzUntil(t, 503);
    expect(down.statusCode).toBe(503);
    expect(down.json()).toMatchObject({
      status: 'unavailable',
      failed: ['redis'],
      checks: { database: 'ok' },
    });

    redis = await startRedis(redisPort);
    const up = await readyzUntil(t, 200);
    expect(up.statusCode).toBe(200);
  });

  it('a Redis that stops answering is "timeout" once the 1 s budget is spent', async () => {
    expect((await readyzUntil(t, 200)).statusCode).toBe(200);
    proxy.stall();
    try {
      const hung = await t.app.inject({ method: 'GET', url: '/readyz' });
      expect(hung.statusCode).toBe(503);
      expect(hung.json().checks).toEqual({ database: 'ok', redis: 'timeout' });
    } finally {
      proxy.resume();
    }
    expect((await readyzUntil(t, 200)).statusCode).toBe(200);
  });
});
