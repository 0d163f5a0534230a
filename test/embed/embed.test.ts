import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp as buildFastifyApp } from '../../examples/embed-fastify/server.ts';
import { buildApp as buildHttpApp } from '../../examples/embed-express-or-http/server.ts';
import { createTestDatabase, type TestDatabase } from '../support/databases.ts';
import { MailCapture } from '../support/mail.ts';
import { TEST_PASSWORD, TEST_SECRET } from '../support/app.ts';

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json' };

async function options(database: TestDatabase, mail: MailCapture) {
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

describe('embedded in a Fastify application (examples/embed-fastify)', () => {
  let database: TestDatabase;
  let mail: MailCapture;
  let app: FastifyInstance;
  beforeAll(async () => {
    database = await createTestDatabase();
    mail = await new MailCapture().start();
    app = await buildFastifyApp(await options(database, mail));
    await app.ready();
  });
  afterAll(async () => {
    await app?.close();
    await mail?.stop();
    await database?.drop();
  });

  it('serves the host route and Citadel under the prefix: register, sign in, /me', async () => {
    expect((await app.inject({ url: '/' })).json()).toMatchObject({ app: 'my application' });
    expect((await app.inject({ url: '/login', headers: { accept: 'application/json' } })).statusCode).toBe(
      404,
    );

    const body = { username: 'embedded', email: 'embedded@example.com', password: TEST_PASSWORD };
    const registered = await app.inject({
      method: 'POST',
      url: '/auth/register',
      headers: JSON_HEADERS,
      payload: { ...body, password_confirm: TEST_PASSWORD },
    });
    expect(registered.statusCode, registered.body).toBeLessThan(300);
    const login = await app.inject({
      method: 'POST',
      url: '/auth/login',
      headers: JSON_HEADERS,
      payload: { email: body.email, password: TEST_PASSWORD },
    });
    expect(login.statusCode, login.body).toBe(200);
    expect(login.json().redirect_to).toBe('/auth/');
    const cookie = login.cookies.find((c) => c.name === 'citadel_session')!;
    const me = await app.inject({
      url: '/auth/me',
      headers: { accept: 'application/json', cookie: `citadel_session=${cookie.value}` },
    });
    expect(me.json().user.username).toBe('embedded');
  });

  it('pages link and post under the prefix; form redirects carry it', async () => {
    const page = await app.inject({ url: '/auth/login' });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('action="/auth/login"');
    expect(page.body).toContain('href="/auth/register"');
    expect(page.body).not.toMatch(/(href|action)="\/(login|register)"/);
    const me = await app.inject({ url: '/auth/me' });
    expect(me.statusCode).toBe(303);
    expect(me.headers.location).toBe('/auth/login');
  });
});

describe('a Node (req, res) handler in node:http (examples/embed-express-or-http)', () => {
  let database: TestDatabase;
  let mail: MailCapture;
  let built: Awaited<ReturnType<typeof buildHttpApp>>;
  let base: string;
  beforeAll(async () => {
    database = await createTestDatabase();
    mail = await new MailCapture().start();
    built = await buildHttpApp({ ...(await options(database, mail)), logger: false });
    built.http.listen(0, '127.0.0.1');
    await once(built.http, 'listening');
    base = `http://127.0.0.1:${(built.http.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    built?.http.close();
    await built?.citadel.close();
    await mail?.stop();
    await database?.drop();
  });

  it('the host answers /, Citadel answers under /auth over real HTTP', async () => {
    expect(await (await fetch(`${base}/`)).json()).toMatchObject({ app: 'my application' });
    const body = { username: 'viahandler', email: 'handler@example.com', password: TEST_PASSWORD };
    const registered = await fetch(`${base}/auth/register`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: JSON.stringify({ ...body, password_confirm: TEST_PASSWORD }),
    });
    expect(registered.status).toBeLessThan(300);
    const login = await fetch(`${base}/auth/login`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: JSON.stringify({ email: body.email, password: TEST_PASSWORD }),
    });
    expect(login.status).toBe(200);
    expect((await login.json()).redirect_to).toBe('/auth/');
    const cookie = login.headers.getSetCookie().find((c) => c.startsWith('citadel_session='))!;
    const me = await fetch(`${base}/auth/me`, {
      headers: { accept: 'application/json', cookie: cookie.split(';')[0]! },
    });
    expect((await me.json()).user.username).toBe('viahandler');
  });

  it('pages under the mount path', async () => {
    const page = await (await fetch(`${base}/auth/register`)).text();
    expect(page).toContain('action="/auth/register"');
    const redirect = await fetch(`${base}/auth/me`, { redirect: 'manual' });
    expect(redirect.status).toBe(303);
    expect(redirect.headers.get('location')).toBe('/auth/login');
  });
});
