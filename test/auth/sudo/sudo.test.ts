import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, TEST_PASSWORD, type TestApp } from '../../support/app.ts';
import { linkIn } from '../../support/mail.ts';
import { enrollTotp, nextStep, totpCode } from '../../support/factors.ts';
import { sudoOptions } from '../../../src/auth/sudo/options.ts';

/** A route that declares requireSudo: enrollment start. */
const PROTECTED = '/two-factor/enroll/start';
const BODY = { factor: 'totp' };

describe('sudo mode', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t?.close());

  it('403 sudo.required before, success after a password proof; GET /sudo reports it; the session id changes', async () => {
    const client = await t.signIn(await t.createUser());
    const before = await client.post(PROTECTED, BODY);
    expect(before.status).toBe(403);
    expect(before.body).toMatchObject({
      action: 'sudo.required',
      status: 'error',
      statusCode: 403,
      redirect_to: '/sudo',
      data: { factors: ['password'] },
    });
    expect(before.body.message).toBeTruthy();
    const index = await client.get('/sudo');
    expect(index.body).toMatchObject({
      action: 'sudo.index',
      status: 'info',
      data: { active: false, factors: ['password'], expires_at: null },
    });

    const sessionBefore = client.cookie('citadel_session');
    const verify = await client.post('/sudo/verify', { factor: 'password', proof: TEST_PASSWORD });
    expect(verify.status).toBe(200);
    expect(verify.body).toMatchObject({ action: 'sudo.verified', status: 'success', redirect_to: '/' });
    const expected = new Date(
      t.clock.now().getTime() + sudoOptions(t.services).ttlSeconds * 1000,
    ).toISOString();
    expect(verify.body.data.expires_at).toBe(expected);
    expect(client.cookie('citadel_session')).not.toBe(sessionBefore);

    expect((await client.post(PROTECTED, BODY)).status).toBe(200);
    const after = await client.get('/sudo');
    expect(after.body.data).toMatchObject({ active: true, expires_at: expected });
  });

  it('a wrong proof is 422 errors.proof; a factor the user lacks is refused', async () => {
    const client = await t.signIn(await t.createUser());
    const wrong = await client.post('/sudo/verify', { factor: 'password', proof: 'not the password' });
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors.proof).toBeTruthy();
    const lacking = await client.post('/sudo/verify', { factor: 'totp', proof: '123456' });
    expect(lacking.status).toBe(422);
    expect(lacking.body.errors.factor).toBeTruthy();
    const missing = await client.post('/sudo/verify', { factor: 'password' });
    expect(missing.status).toBe(422);
    expect(missing.body.errors.proof).toBeTruthy();
    expect((await client.post(PROTECTED, BODY)).status).toBe(403);
  });

  it('expires after SUDO_TTL (server-fixed)', async () => {
    const client = await t.signIn(await t.createUser());
    await client.post('/sudo/verify', { factor: 'password', proof: TEST_PASSWORD, ttl: 999_999 });
    const ttl = sudoOptions(t.services).ttlSeconds;
    t.clock.advance(ttl - 5);
    expect((await client.post(PROTECTED, BODY)).status).toBe(200);
    t.clock.advance(6);
    const expired = await client.post(PROTECTED, BODY);
    expect(expired.status).toBe(403);
    expect(expired.body.action).toBe('sudo.required');
    expect((await client.get('/sudo')).body.data.active).toBe(false);
  });

  it('POST /sudo/exit ends it at once', async () => {
    const client = await t.signIn(await t.createUser());
    await client.post('/sudo/verify', { factor: 'password', proof: TEST_PASSWORD });
    const exit = await client.post('/sudo/exit');
    expect(exit.status).toBe(200);
    expect(exit.body.action).toBe('sudo.exit');
    expect((await client.post(PROTECTED, BODY)).status).toBe(403);
  });

  it('sign-out ends it, and another account signing in on the same client does not inherit it', async () => {
    const alice = await t.createUser();
    const bob = await t.createUser();
    const client = await t.signIn(alice);
    await client.post('/sudo/verify', { factor: 'password', proof: TEST_PASSWORD });
    expect((await client.get('/sudo')).body.data.active).toBe(true);
    await client.post('/logout');
    const login = await client.post('/login', { email: bob.email, password: TEST_PASSWORD });
    expect(login.body.action).toBe('login.attempt');
    expect((await client.get('/me')).body.user.id).toBe(bob.id);
    expect((await client.get('/sudo')).body.data.active).toBe(false);
    expect((await client.post(PROTECTED, BODY)).status).toBe(403);
    // And signing in again as alice does not bring hers back either.
    await client.post('/logout');
    await client.post('/login', { email: alice.email, password: TEST_PASSWORD });
    expect((await client.post(PROTECTED, BODY)).status).toBe(403);
  });

  it('the sixth wrong proof within the window is 429, even with the right password; the window then passes', async () => {
    const client = await t.signIn(await t.createUser());
    for (let i = 0; i < 5; i += 1) {
      const res = await client.post('/sudo/verify', { factor: 'password', proof: `wrong-${i}` });
      expect(res.status).toBe(422);
    }
    const sixth = await client.post('/sudo/verify', { factor: 'password', proof: TEST_PASSWORD });
    expect(sixth.status).toBe(429);
    expect(Number(sixth.headers['retry-after'])).toBeGreaterThan(0);
    expect((await client.post(PROTECTED, BODY)).status).toBe(403);
    t.clock.advance(sudoOptions(t.services).failureWindowSeconds + 1);
    expect((await client.post('/sudo/verify', { factor: 'password', proof: TEST_PASSWORD })).status).toBe(
      200,
    );
  });

  it('TOTP is a sudo proof; its code cannot be replayed for sudo', async () => {
    const client = await t.signIn(await t.createUser());
    const { secret } = await enrollTotp(t, client);
    nextStep(t);
    await client.post('/sudo/exit');
    const code = totpCode(t, secret);
    expect((await client.post('/sudo/verify', { factor: 'totp', proof: code })).status).toBe(200);
    await client.post('/sudo/exit');
    expect((await client.post('/sudo/verify', { factor: 'totp', proof: code })).status).toBe(422);
  });

  it('a browser is sent to /sudo?next=<its page> and back to it after verifying', async () => {
    const client = await t.signIn(await t.createUser());
    // A form POST from the settings page: back to that page afterwards.
    const post = await client.post(PROTECTED, BODY, 'form', {
      headers: { referer: 'http://localhost:3000/two-factor' },
    });
    expect(post.status).toBe(303);
    expect(post.location).toBe('/sudo?next=%2Ftwo-factor');
    const page = await client.get('/sudo?next=%2Ftwo-factor', 'form');
    expect(page.status).toBe(200);
    expect(page.text).toContain('action="/sudo/verify"');
    expect(page.text).toContain('name="next" value="/two-factor"');
    const verify = await client.post(
      '/sudo/verify',
      { factor: 'password', proof: TEST_PASSWORD, next: '/two-factor' },
      'form',
    );
    expect(verify.status).toBe(303);
    expect(verify.location).toBe('/two-factor');

    // Saved by GET /sudo?next= alone (a JSON client posting without next).
    await client.post('/sudo/exit');
    await client.get('/sudo?next=%2Ftokens', 'form');
    const json = await client.post('/sudo/verify', { factor: 'password', proof: TEST_PASSWORD });
    expect(json.body.redirect_to).toBe('/tokens');
  });

  it('a wrong proof from a form re-shows the sudo page with the error', async () => {
    const client = await t.signIn(await t.createUser());
    const res = await client.post(
      '/sudo/verify',
      { factor: 'password', proof: 'nope nope', next: '/two-factor' },
      'form',
    );
    expect(res.status).toBe(422);
    expect(res.text).toContain('That proof was not accepted');
    expect(res.text).toContain('name="next" value="/two-factor"');
  });

  it('only same-site relative paths are accepted as next', async () => {
    const client = await t.signIn(await t.createUser());
    for (const next of [
      '//evil.example/x',
      'https://evil.example/',
      '/\\evil.example',
      'javascript:alert(1)',
      '/ok\r\nx',
    ]) {
      await client.post('/sudo/exit');
      await client.get(`/sudo?next=${encodeURIComponent(next)}`, 'form');
      const res = await client.post(
        '/sudo/verify',
        { factor: 'password', proof: TEST_PASSWORD, next },
        'form',
      );
      expect(res.status).toBe(303);
      expect(res.location).toBe('/');
    }
  });

  it('no caller: 401; a bearer token passes requireSudo (its abilities are its permissions)', async () => {
    expect((await t.client().post(PROTECTED, BODY)).status).toBe(401);
    const { client } = { client: await t.signIn(await t.createUser()) };
    await client.post('/sudo/verify', { factor: 'password', proof: TEST_PASSWORD });
    const created = await client.post('/tokens', { name: 'ci', abilities: ['tokens:create'] });
    expect(created.status, created.text).toBe(201);
    const bearer = t.client();
    const viaToken = await bearer.post('/tokens', { name: 'child', abilities: ['tokens:create'] }, 'json', {
      token: created.body.token,
    });
    expect(viaToken.status, viaToken.text).toBe(201);
  });

  it('a user with no eligible factor (no password, no factor) is elevated for SUDO_TTL after signing in', async () => {
    const user = await t.createUser({ password: null });
    const client = t.client();
    const count = t.mail.to(user.email).length + 1;
    await client.post('/magic-link', { email: user.email });
    const mail = await t.mail.waitFor(user.email, { count });
    const prefix = 'http://localhost:3000/magic-link/verify/';
    const verify = await client.get(`/magic-link/verify/${linkIn(mail, prefix).slice(prefix.length)}`);
    expect(verify.body.action, verify.text).toBe('magic_link.verify');
    const sudo = await client.get('/sudo');
    expect(sudo.body.data).toMatchObject({ active: true, factors: [] });
    expect((await client.post(PROTECTED, BODY)).status).toBe(200);
    t.clock.advance(sudoOptions(t.services).ttlSeconds + 1);
    expect((await client.post(PROTECTED, BODY)).status).toBe(403);

    // A user with a password is not elevated by signing in.
    const other = await t.signIn(await t.createUser());
    expect((await other.get('/sudo')).body.data.active).toBe(false);
  });
});
