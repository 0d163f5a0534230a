import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve } from '@hono/node-server';
import { buildApp as buildFastifyApp } from '../../examples/embed-fastify/server.ts';
import { buildExpressApp } from '../../examples/embed-express-or-http/server.ts';
import { buildApp as buildHonoApp } from '../../examples/embed-hono/server.ts';
import { createTestDatabase, type TestDatabase } from '../support/databases.ts';
import { MailCapture } from '../support/mail.ts';
import { TEST_PASSWORD, TEST_SECRET } from '../support/app.ts';

/*
 * The host application's own routes know who is calling, in Fastify (the plugin), Express (the
 * Node handler) and Hono (the Fetch handler), over real HTTP: anonymous, a session cookie, a
 * bearer token, a revoked session, and a route that needs sudo.
 */

interface Host {
  base: string;
  /** What the host's /whoami answered as the caller, in the shape getCaller() gives. */
  stop(): Promise<void>;
}

function citadelOptions(database: TestDatabase, mail: MailCapture) {
  return {
    env: {},
    logLevel: 'silent' as const,
    seedDemo: false,
    databaseUrl: database.url,
    sessionSecret: TEST_SECRET,
    smtpUrl: mail.url,
    appUrl: 'http://localhost:3000',
    dataDir: '/tmp/citadel-test-data',
  };
}

async function listening(server: Server): Promise<string> {
  if (!server.listening) await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const HOSTS: Record<string, (database: TestDatabase, mail: MailCapture) => Promise<Host>> = {
  async fastify(database, mail) {
    const app = await buildFastifyApp(citadelOptions(database, mail));
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    return { base, stop: () => app.close() };
  },
  async express(database, mail) {
    const { app, citadel } = await buildExpressApp({ ...citadelOptions(database, mail), logger: false });
    const server = app.listen(0, '127.0.0.1');
    const base = await listening(server);
    return {
      base,
      async stop() {
        server.close();
        await citadel.close();
      },
    };
  },
  async hono(database, mail) {
    const { app, citadel } = buildHonoApp({ ...citadelOptions(database, mail), logger: false });
    await citadel.ready();
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as Server;
    const base = await listening(server);
    return {
      base,
      async stop() {
        server.close();
        await citadel.close();
      },
    };
  },
};

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json' };

for (const [name, start] of Object.entries(HOSTS)) {
  describe(`the host's own routes know the caller (${name})`, () => {
    let database: TestDatabase;
    let mail: MailCapture;
    let host: Host;
    let cookie = '';

    async function call(method: string, path: string, init: { body?: unknown; auth?: string } = {}) {
      const response = await fetch(`${host.base}${path}`, {
        method,
        redirect: 'manual',
        headers: {
          ...JSON_HEADERS,
          ...(init.auth ? { authorization: init.auth } : cookie ? { cookie } : {}),
        },
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
      });
      const session = response.headers
        .getSetCookie()
        .find((c) => c.startsWith('citadel_session=') && !c.startsWith('citadel_session=;'));
      if (session) cookie = session.split(';')[0]!;
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : null };
    }

    beforeAll(async () => {
      database = await createTestDatabase();
      mail = await new MailCapture().start();
      host = await start(database, mail);
    });
    afterAll(async () => {
      await host?.stop();
      await mail?.stop();
      await database?.drop();
    });

    it('anonymous: no caller, 401 on a route that needs one', async () => {
      expect((await call('GET', '/whoami')).body.caller).toBeNull();
      expect((await call('GET', '/dashboard')).status).toBe(401);
      expect((await call('POST', '/billing/close-account', { body: {} })).status).toBe(401);
    });

    let token = '';
    let signedInCookie = '';
    it('a session cookie is the user; sudo-required answers 403 until sudo, then 200', async () => {
      const account = { username: `host${name}`, email: `${name}@example.com`, password: TEST_PASSWORD };
      const registered = await call('POST', '/auth/register', {
        body: { ...account, password_confirm: TEST_PASSWORD },
      });
      expect(registered.status, JSON.stringify(registered.body)).toBeLessThan(300);
      const who = await call('GET', '/whoami');
      expect(who.body.caller.user).toMatchObject({ username: account.username, email: account.email });
      expect(who.body.caller.session.sudoExpiresAt).toBeNull();
      expect(who.body.caller.token).toBeUndefined();
      expect(who.body.caller.user.password_hash).toBeUndefined();
      if (name === 'fastify') expect(who.body.via).toBe('session');
      expect((await call('GET', '/dashboard')).body).toEqual({ user: account.username });

      const refused = await call('POST', '/billing/close-account', { body: {} });
      expect(refused.status).toBe(403);
      const sudo = await call('POST', '/auth/sudo/verify', {
        body: { factor: 'password', proof: TEST_PASSWORD },
      });
      expect(sudo.status, JSON.stringify(sudo.body)).toBe(200);
      expect((await call('GET', '/whoami')).body.caller.session.sudoExpiresAt).toEqual(expect.any(String));
      expect((await call('POST', '/billing/close-account', { body: {} })).body).toEqual({
        closed: account.username,
      });

      const created = await call('POST', '/auth/tokens', { body: { name: 'ci', abilities: ['*'] } });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      token = created.body.token ?? created.body.data?.token;
      expect(token).toEqual(expect.any(String));
      signedInCookie = cookie;
    });

    it('a bearer token is its owner and the token (and passes sudo, as on Citadel routes)', async () => {
      const who = await call('GET', '/whoami', { auth: `Bearer ${token}` });
      expect(who.body.caller.user.username).toBe(`host${name}`);
      expect(who.body.caller.token).toMatchObject({ name: 'ci', abilities: ['*'] });
      expect(who.body.caller.session).toBeUndefined();
      if (name === 'fastify') expect(who.body.via).toBe('token');
      expect((await call('GET', '/dashboard', { auth: `Bearer ${token}` })).status).toBe(200);
      expect(
        (await call('POST', '/billing/close-account', { auth: `Bearer ${token}`, body: {} })).status,
      ).toBe(200);
      const bad = await call('GET', '/whoami', { auth: 'Bearer not-a-token' });
      expect(bad.body.caller).toBeNull();
      expect((await call('GET', '/dashboard', { auth: 'Bearer not-a-token' })).status).toBe(401);
    });

    it('a revoked (signed-out) session is no caller any more', async () => {
      expect((await call('POST', '/auth/logout', { body: {} })).status).toBeLessThan(400);
      cookie = signedInCookie;
      expect((await call('GET', '/whoami')).body.caller).toBeNull();
      expect((await call('GET', '/dashboard')).status).toBe(401);
    });
  });
}
