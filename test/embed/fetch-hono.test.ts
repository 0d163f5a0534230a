import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve } from '@hono/node-server';
import { buildApp } from '../../examples/embed-hono/server.ts';
import demo from '../../examples/blog/citadel.config.ts';
import { Type } from '@sinclair/typebox';
import {
  defaultPlugins,
  defineEndpoint,
  definePlugin,
  Envelope,
  type CitadelFetchHandler,
} from '../../src/index.ts';
import { createTestDatabase, type TestDatabase } from '../support/databases.ts';
import { MailCapture } from '../support/mail.ts';
import { TEST_PASSWORD, TEST_SECRET } from '../support/app.ts';

/*
 * createFetchHandler() in a real Hono application on a real port (examples/embed-hono), with the
 * demo's resource API: the same behaviour as the Node server (cookies, CSRF, envelope, redirects,
 * bodies, HEAD, 404), and the client address the host hands over, read per trustProxy.
 */

const whereFrom = definePlugin({
  id: 'where-from',
  endpoints: [
    defineEndpoint({
      method: 'GET',
      path: '/where-from',
      action: 'where_from',
      auth: 'optional',
      alwaysJson: true,
      responses: { 200: Envelope({ data: Type.Object({ ip: Type.String() }) }) },
      async handler({ ip }) {
        return { status: 'success', data: { ip } };
      },
    }),
  ],
});

describe('createFetchHandler in Hono (examples/embed-hono)', () => {
  let database: TestDatabase;
  let mail: MailCapture;
  let citadel: CitadelFetchHandler;
  let server: Server;
  let base = '';

  beforeAll(async () => {
    database = await createTestDatabase();
    mail = await new MailCapture().start();
    const { seed: _seed, ...app } = demo;
    const built = buildApp({
      ...app,
      plugins: [...defaultPlugins(), whereFrom],
      env: {},
      logger: false,
      seedDemo: false,
      databaseUrl: database.url,
      sessionSecret: TEST_SECRET,
      smtpUrl: mail.url,
      appUrl: 'http://localhost:3000',
      dataDir: '/tmp/citadel-test-data',
      trustProxy: '10.0.0.1',
    });
    citadel = built.citadel;
    await citadel.ready();
    server = serve({ fetch: built.app.fetch, port: 0, hostname: '127.0.0.1' }) as Server;
    if (!server.listening) await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server?.close();
    await citadel?.close();
    await mail?.stop();
    await database?.drop();
  });

  const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json' };
  const account = { username: 'honouser', email: 'hono@example.com', password: TEST_PASSWORD };

  function sessionCookie(response: Response): string | undefined {
    return response.headers
      .getSetCookie()
      .find((c) => c.startsWith('citadel_session=') && !c.startsWith('citadel_session=;'))
      ?.split(';')[0];
  }

  it('register and sign in as JSON: the envelope, both cookies as separate Set-Cookie headers, /me', async () => {
    const registered = await fetch(`${base}/auth/register`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: JSON.stringify({ ...account, password_confirm: TEST_PASSWORD }),
    });
    expect(registered.status).toBe(201);
    expect((await registered.json()).status).toBe('success');

    const login = await fetch(`${base}/auth/login`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: JSON.stringify({ email: account.email, password: TEST_PASSWORD, remember: true }),
    });
    expect(login.status).toBe(200);
    const envelope = await login.json();
    expect(envelope).toMatchObject({ status: 'success', redirect_to: '/auth/' });
    const cookies = login.headers.getSetCookie();
    expect(cookies.some((c) => c.startsWith('citadel_session='))).toBe(true);
    expect(cookies.some((c) => c.startsWith('citadel_remember='))).toBe(true);
    expect(cookies.every((c) => /HttpOnly/i.test(c) && /Path=\//.test(c))).toBe(true);

    const me = await fetch(`${base}/auth/me`, {
      headers: { accept: 'application/json', cookie: sessionCookie(login)! },
    });
    expect(me.status).toBe(200);
    expect((await me.json()).user.username).toBe(account.username);
    expect(me.headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'");
    expect(me.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('a form post needs the CSRF token of its session; with it, a 303 redirect under the mount path', async () => {
    const page = await fetch(`${base}/auth/login`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const markup = await page.text();
    expect(markup).toContain('action="/auth/login"');
    const csrf = /name="_csrf" value="([^"]+)"/.exec(markup)![1]!;
    const cookie = sessionCookie(page)!;
    const form = { email: account.email, password: TEST_PASSWORD };
    const forged = await fetch(`${base}/auth/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
      body: new URLSearchParams(form).toString(),
    });
    expect(forged.status).toBe(403);
    const posted = await fetch(`${base}/auth/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
      body: new URLSearchParams({ ...form, _csrf: csrf }).toString(),
    });
    expect(posted.status).toBe(303);
    expect(posted.headers.get('location')).toBe('/auth/');
    // Multipart bodies are parsed too (and need the token just the same).
    const multipart = new FormData();
    multipart.set('email', account.email);
    multipart.set('password', TEST_PASSWORD);
    const noToken = await fetch(`${base}/auth/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, accept: 'application/json' },
      body: multipart,
    });
    expect(noToken.status).toBe(403);
    expect((await noToken.json()).status).toBe('error');
  });

  it('the resource API through the handler: write as the signed-in user, read it back', async () => {
    const login = await fetch(`${base}/auth/login`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: JSON.stringify({ email: account.email, password: TEST_PASSWORD }),
    });
    const cookie = sessionCookie(login)!;
    const created = await fetch(`${base}/auth/api/v1/posts`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, cookie },
      body: JSON.stringify({ title: 'Through Hono', body: 'Hello', status: 'published' }),
    });
    expect(created.status, await created.clone().text()).toBe(201);
    const id = (await created.json()).data.id;
    const read = await fetch(`${base}/auth/api/v1/posts/${id}`, { headers: { accept: 'application/json' } });
    expect(read.status).toBe(200);
    expect((await read.json()).data.title).toBe('Through Hono');
    const head = await fetch(`${base}/auth/api/v1/posts/${id}`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });

  it('an unknown path is Citadel 404 envelope; a path outside the mount is not served', async () => {
    const missing = await fetch(`${base}/auth/no-such-page`, { headers: { accept: 'application/json' } });
    expect(missing.status).toBe(404);
    expect((await missing.json()).status).toBe('error');
    const outside = await citadel(
      new Request('http://localhost/login', { headers: { accept: 'application/json' } }),
    );
    expect(outside.status).toBe(404);
  });

  it('the client address: the one the host passes, X-Forwarded-For only from a trusted proxy', async () => {
    const ip = async (context: unknown, headers: Record<string, string> = {}) =>
      (await (await citadel(new Request('http://localhost/auth/where-from', { headers }), context)).json())
        .data.ip;
    // Through Hono: the socket's address.
    expect((await (await fetch(`${base}/auth/where-from`)).json()).data.ip).toBe('127.0.0.1');
    expect(await ip({ clientAddress: '198.51.100.7' })).toBe('198.51.100.7');
    expect(await ip({ clientAddress: '198.51.100.7' }, { 'x-forwarded-for': '203.0.113.5' })).toBe(
      '198.51.100.7',
    );
    expect(await ip({ clientAddress: '10.0.0.1' }, { 'x-forwarded-for': '203.0.113.5' })).toBe('203.0.113.5');
    // Deno's and Bun's serve give theirs as the second argument.
    expect(await ip({ remoteAddr: { hostname: '192.0.2.4' } })).toBe('192.0.2.4');
    expect(await ip({ requestIP: () => ({ address: '192.0.2.5' }) })).toBe('192.0.2.5');
    // No address at all: nothing trusts it, so a forged X-Forwarded-For is not believed.
    expect(await ip(undefined, { 'x-forwarded-for': '203.0.113.5' })).toBe('0.0.0.0');
  });

  it('after close(), requests are refused with 503', async () => {
    const extra = buildApp({
      env: {},
      logger: false,
      seedDemo: false,
      databaseUrl: 'sqlite::memory:',
      sessionSecret: TEST_SECRET,
      dataDir: '/tmp/citadel-test-data',
    }).citadel;
    expect((await extra(new Request('http://localhost/auth/healthz'))).status).toBe(200);
    await extra.close();
    expect((await extra(new Request('http://localhost/auth/healthz'))).status).toBe(503);
  });
});
