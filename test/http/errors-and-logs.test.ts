import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, TEST_PASSWORD, type TestApp } from '../support/app.ts';
import { assertNoSecretsLeaked, TestClient } from '../support/client.ts';
import { linkIn } from '../support/mail.ts';
import { PasswordHasher } from '../../src/auth/core/passwords.ts';
import { sha256Hex } from '../../src/core/crypto.ts';

const PASSWORD = 'log-test-password-71';

describe('request logs never contain passwords, tokens or cookies', () => {
  let t: TestApp;
  const lines: string[] = [];
  beforeAll(async () => {
    t = await startTestApp({
      logger: undefined,
      logStream: { write: (line: string) => void lines.push(line) },
    });
  });
  afterAll(async () => t?.close());

  it('logs requests with redacted URLs and nothing secret', async () => {
    const browser = t.client();
    const reg = await browser.post(
      '/register',
      { username: 'Log User', email: 'log@example.com', password: PASSWORD, password_confirm: PASSWORD },
      'form',
    );
    expect(reg.status).toBe(303);
    await browser.post('/logout', {}, 'form');
    const client = t.client();
    await client.post('/login', { email: 'log@example.com', password: PASSWORD, remember: 1 });
    const session = client.cookie('citadel_session')!;
    const remember = client.cookie('citadel_remember')!;
    const csrf = browser.cookie('citadel_session')!;
    await client.get('/me');
    const user = (await t.services.users.findByEmail('log@example.com'))!;
    const { token } = await t.services.tokens.issue({
      userId: user.id,
      name: 'n',
      abilities: ['*'],
      expiresAt: null,
    });
    await t.client().get('/me', 'json', { token });
    await t.client().get(`/me?access_token=${token}`);
    await t.client().post('/forgot-password', { email: 'log@example.com' });
    // Its own mail: a new-device notice for the sign-ins above may arrive in between.
    const mail = await t.mail.waitFor('log@example.com', {
      match: (m) => m.text.includes('/reset-password?token='),
    });
    const resetToken = new URL(linkIn(mail, 'http://localhost:3000/reset-password?token=')).searchParams.get(
      'token',
    )!;
    await t.client().get(`/reset-password?token=${encodeURIComponent(resetToken)}`, 'form');
    const newPassword = 'another-log-password-2';
    await t
      .client()
      .post('/reset-password', { token: resetToken, password: newPassword, password_confirm: newPassword });
    await t.client().post('/login', { email: 'log@example.com', password: 'wrong-password-logged?' });

    const log = lines.join('');
    expect(log).toContain('incoming request');
    expect(log).toContain('"url":"/reset-password?token=%5Bredacted%5D"');
    expect(log).toContain('"url":"/me?access_token=%5Bredacted%5D"');
    for (const secret of [
      PASSWORD,
      newPassword,
      'wrong-password-logged?',
      session,
      remember,
      csrf,
      token,
      resetToken,
    ]) {
      expect(log).not.toContain(secret);
    }
    expect(log.toLowerCase()).not.toContain('authorization');
    expect(log.toLowerCase()).not.toContain('cookie');
    assertNoSecretsLeaked(log, 'the request log');
  });
});

describe('unexpected errors', () => {
  let t: TestApp;
  const lines: string[] = [];
  beforeAll(async () => {
    t = await startTestApp({
      logger: undefined,
      logStream: { write: (line: string) => void lines.push(line) },
    });
  });
  afterAll(async () => t?.close());

  it('a database failure is a 500 with a generic message, no stack or SQL; details only in the log', async () => {
    const user = await t.createUser();
    await t.services.db.schema.dropTable('rate_limits').execute();
    for (const kind of ['json', 'spa'] as const) {
      const res = await t.client().post('/login', { email: user.email, password: TEST_PASSWORD }, kind);
      expect(res.status).toBe(500);
      expect(res.body).toEqual({
        action: 'login.attempt',
        status: 'error',
        statusCode: 500,
        message: 'Something went wrong. Please try again later.',
      });
    }
    const form = await t.client().post('/login', { email: user.email, password: TEST_PASSWORD }, 'form');
    expect(form.status).toBe(500);
    expect(form.text).toContain('Something went wrong. Please try again later.');
    expect(form.text).not.toMatch(/rate_limits|no such table|does not exist|doesn't exist|\.ts:\d+/i);
    const log = lines.join('');
    expect(log).toContain('unhandled error');
    expect(log).toContain('rate_limits');
  });
});

describe('HTTP basics', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      routes: (app) => {
        app.get('/test/crash', { config: { action: 'test.crash' } }, async () => {
          throw new Error('select secret_column from hidden_table where x = 1');
        });
      },
    });
  });
  afterAll(async () => t?.close());

  it('a thrown error becomes the generic 500 for every client kind', async () => {
    for (const kind of ['json', 'spa', 'form'] as const) {
      const res = await t.client().get('/test/crash', kind);
      expect(res.status).toBe(500);
      expect(res.text).toContain('Something went wrong. Please try again later.');
      expect(res.text).not.toContain('hidden_table');
      expect(res.text).not.toContain('.ts:');
    }
  });

  it('security headers (helmet) with a CSP that allows only our own scripts', async () => {
    const res = await t.client().get('/login', 'form');
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("default-src 'self'");
    expect(csp).not.toContain('upgrade-insecure-requests');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['referrer-policy']).toBe('same-origin');
    expect(res.headers['x-powered-by']).toBeUndefined();
    const json = await t.client().get('/me');
    expect(json.headers['x-content-type-options']).toBe('nosniff');
    // Pages carry CSRF tokens and user data; envelopes carry users and one-time secrets.
    expect(res.headers['cache-control']).toBe('private, no-store');
    expect(json.headers['cache-control']).toBe('private, no-store');
  });

  it('negotiation: Accept JSON gets the envelope, X-Spa gets the envelope, a browser gets HTML', async () => {
    expect((await t.client().get('/login')).body).toEqual({
      action: 'login.show',
      status: 'info',
      statusCode: 200,
    });
    expect((await t.client().get('/login', 'spa')).body).toEqual({
      action: 'login.show',
      status: 'info',
      statusCode: 200,
    });
    const page = await t.client().get('/login', 'form');
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.text).toContain('<form method="post" action="/login"');
  });

  it('unknown routes are 404 in the envelope; malformed JSON is 400', async () => {
    const missing = await t.client().get('/no-such-page');
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ status: 'error', statusCode: 404 });
    const bad = await t
      .client()
      .post('/login', undefined, 'json', { headers: { 'content-type': 'application/json' } });
    expect(bad.status).toBe(422);
    const res = await t.app.inject({
      method: 'POST',
      url: '/login',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      payload: '{"email":',
    });
    expect(res.statusCode).toBe(400);
    expect(JSON.parse(res.body)).toMatchObject({ status: 'error', statusCode: 400 });
  });
});

describe('the leak check in the test client', () => {
  it('fails on a body holding an Argon2 hash or a SHA-256 hex digest', async () => {
    const hash = await new PasswordHasher().hash('whatever-password');
    const digest = sha256Hex('some token');
    const app = Fastify();
    app.get('/argon', async () => ({ hash }));
    app.get('/sha', async () => `token_hash=${digest}`);
    app.get('/fine', async () => ({ ok: 'abc123', short: digest.slice(0, 63) }));
    await app.ready();
    const client = new TestClient(app);
    await expect(client.get('/argon')).rejects.toThrow(/password hash/);
    await expect(client.get('/sha')).rejects.toThrow(/hex digest/);
    expect((await client.get('/fine')).status).toBe(200);
    await app.close();
    expect(() => assertNoSecretsLeaked(`x ${digest.toUpperCase().toLowerCase()} y`, 'a string')).toThrow();
  });
});
