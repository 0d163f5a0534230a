import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.ts';
import type { TestClient } from '../../support/client.ts';
import { SoftAuthenticator } from '../../support/soft-authenticator.ts';
import { sudoWithPassword } from '../../support/factors.ts';
import { storedEvents } from '../../support/security-events.ts';

const ORIGIN = 'http://localhost:3000';

async function enrollPasskey(t: TestApp, key: SoftAuthenticator) {
  const user = await t.createUser();
  const client = await t.signIn(user);
  await sudoWithPassword(client);
  const start = await client.post('/two-factor/enroll/start', { factor: 'passkey' });
  const confirm = await client.post('/two-factor/enroll/confirm', {
    factor: 'passkey',
    proof: key.register(start.body.data.options),
  });
  expect(confirm.status, confirm.text).toBe(200);
  return user;
}

async function options(client: TestClient) {
  const response = await client.post('/passkey/login/options');
  expect(response.status).toBe(200);
  return response.body.data.options as {
    challenge: string;
    allowCredentials?: unknown;
    userVerification: string;
  };
}

describe('passkey sign-in', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t?.close());

  it('options: no allowCredentials, user verification required', async () => {
    const client = t.client();
    const response = await client.post('/passkey/login/options');
    expect(response.body).toMatchObject({ action: 'passkey.options', status: 'info', statusCode: 200 });
    expect(response.body.data.options.allowCredentials ?? []).toEqual([]);
    expect(response.body.data.options.userVerification).toBe('required');
    expect(response.body.data.options.rpId).toBe('localhost');
  });

  for (const kind of ['json', 'spa'] as const) {
    it(`signs in with no password, and the passkey counts as the second factor (${kind})`, async () => {
      const key = new SoftAuthenticator(ORIGIN);
      const user = await enrollPasskey(t, key);
      const client = t.client();
      const opts = await options(client);
      const response = await client.post('/passkey/login', { response: key.assert(opts) }, kind);
      expect(response.status, response.text).toBe(200);
      expect(response.body).toMatchObject({
        action: 'passkey.login',
        status: 'success',
        user: { id: user.id },
        redirect_to: '/',
      });
      expect((await client.get('/me')).body.user.id).toBe(user.id);
      const signIn = (await storedEvents(t, user.id)).filter((e) => e.type === 'sign_in');
      expect(signIn.length).toBeGreaterThanOrEqual(2);
    });
  }

  it('JSON only (contract 14): a form, multipart or text/plain post is 415 and signs nobody in', async () => {
    const key = new SoftAuthenticator(ORIGIN);
    await enrollPasskey(t, key);
    const client = t.client();
    const opts = await options(client);
    const assertion = JSON.stringify(key.assert(opts));
    const form = await client.post('/passkey/login', { response: assertion }, 'form');
    expect(form.status).toBe(415);
    expect(form.text).toContain('<!doctype html>');
    const text = await client.request('POST', '/passkey/login', 'json', assertion, {
      headers: { 'content-type': 'text/plain' },
    });
    expect(text.status).toBe(415);
    expect(text.body).toMatchObject({ action: 'passkey.login', status: 'error', statusCode: 415 });
    const multipart = await client.request('POST', '/passkey/login', 'json', undefined, {
      headers: { 'content-type': 'multipart/form-data; boundary=b' },
    });
    expect(multipart.status).toBe(415);
    expect(multipart.body).toMatchObject({ action: 'passkey.login', statusCode: 415 });
    expect((await client.get('/me')).status).toBe(401);
  });

  it('other sign-in actions still run after a passkey', async () => {
    // Enrolled through the first server, signing in on a second one with email_2fa, same database.
    const key = new SoftAuthenticator(ORIGIN);
    await enrollPasskey(t, key);
    const app = await startTestApp({
      loginActions: ['email_2fa'],
      sharedDatabase: t.database,
      sharedMail: t.mail,
    });
    try {
      const client = app.client();
      const opts = await options(client);
      const response = await client.post('/passkey/login', { response: key.assert(opts) });
      expect(response.body).toMatchObject({ action: 'passkey.action_required', redirect_to: '/action/show' });
      expect((await client.get('/action/show')).body.data.action).toBe('email_2fa');
      expect((await client.get('/me')).status).toBe(401);
    } finally {
      await app.close();
    }
  });

  it('refuses with 401 errors.passkey: unknown credential, no user verification, wrong origin, reused or missing challenge, expired', async () => {
    const key = new SoftAuthenticator(ORIGIN);
    const user = await enrollPasskey(t, key);
    const attempt = async (build: (opts: { challenge: string }) => unknown, before?: () => void) => {
      const client = t.client();
      const opts = await options(client);
      before?.();
      return { client, response: await client.post('/passkey/login', { response: build(opts) }) };
    };
    const stranger = new SoftAuthenticator(ORIGIN);
    const results = [
      await attempt((o) => stranger.assert(o)),
      await attempt((o) => key.assert(o, ORIGIN, false)),
      await attempt((o) => key.assert(o, 'http://evil.example')),
      await attempt(
        (o) => key.assert(o),
        () => t.clock.advance(5 * 60 + 1),
      ),
      await attempt(() => 'not json'),
    ];
    // Replay: the same assertion twice on one session, and a fresh one without asking for options.
    const client = t.client();
    const assertion = key.assert(await options(client));
    expect((await client.post('/passkey/login', { response: assertion })).status).toBe(200);
    await client.post('/logout');
    results.push({ client, response: await client.post('/passkey/login', { response: assertion }) });
    results.push({
      client: t.client(),
      response: await t.client().post('/passkey/login', { response: key.assert({ challenge: 'AAAA' }) }),
    });
    for (const { client: c, response } of results) {
      expect(response.status, response.text).toBe(401);
      expect(response.body).toMatchObject({
        action: 'passkey.login',
        status: 'error',
        errors: { passkey: expect.any(String) },
      });
      expect((await c.get('/me')).status).toBe(401);
    }
    // Verification failures of a known credential (no user verification, wrong origin) are events.
    expect((await storedEvents(t, user.id)).filter((e) => e.type === 'sign_in_failed')).toHaveLength(2);
  });

  it('two parallel uses of one challenge sign in once', async () => {
    const key = new SoftAuthenticator(ORIGIN);
    await enrollPasskey(t, key);
    const client = t.client();
    const opts = await options(client);
    key.counter = -1; // both assertions carry counter 0: only the challenge claim can stop the second
    const a = key.assert(opts);
    key.counter = -1;
    const b = key.assert(opts);
    const results = await Promise.all([
      client.post('/passkey/login', { response: a }),
      client.post('/passkey/login', { response: b }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 401]);
  });
});
