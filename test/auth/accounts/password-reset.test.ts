import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestApp, TEST_PASSWORD, type TestApp } from '../../support/app.ts';
import { linkIn, type CapturedMail } from '../../support/mail.ts';
import type { UserRecord } from '../../../src/auth/core/users.ts';

const NEW_PASSWORD = 'fresh-maple-lantern-9';

describe('forgot-password and reset-password', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t?.close());
  beforeEach(() => t.clock.advance(2 * 3600));

  /** Ask for a reset and return the token from the link in the captured email. */
  async function requestReset(user: UserRecord, kind: 'json' | 'spa' | 'form' = 'json'): Promise<string> {
    // Only reset mails count: a new-device notice of an earlier sign-in may arrive in between.
    const match = (mail: CapturedMail) => mail.text.includes('/reset-password?token=');
    const count = t.mail.to(user.email).filter(match).length + 1;
    const res = await t.client().post('/forgot-password', { email: user.email.toUpperCase() }, kind);
    expect(res.status).toBe(kind === 'form' ? 303 : 200);
    const mail = await t.mail.waitFor(user.email, { count, match });
    const link = linkIn(mail, 'http://localhost:3000/reset-password?token=');
    expect(mail.html).toContain(link.replace(/&/g, '&amp;'));
    return new URL(link).searchParams.get('token')!;
  }

  const reset = (token: string, password = NEW_PASSWORD) =>
    t.client().post('/reset-password', { token, password, password_confirm: password });

  it('forgot-password: the same response for a known and an unknown address; mail only for the known one', async () => {
    const user = await t.createUser();
    const known = await t.client().post('/forgot-password', { email: user.email });
    const unknown = await t.client().post('/forgot-password', { email: 'ghost@example.com' });
    expect(known.status).toBe(200);
    expect(unknown.body).toEqual(known.body);
    expect(known.body).toEqual({
      action: 'forgot_password.send',
      status: 'success',
      statusCode: 200,
      message: expect.stringContaining('If that address belongs to an account'),
      redirect_to: '/login',
    });
    const mail = await t.mail.waitFor(user.email);
    expect(mail.subject).toBe('Citadel: Reset your password');
    // Every send started after the answers is done: none went to the unknown address.
    await t.mail.settled();
    expect(t.mail.to('ghost@example.com')).toEqual([]);
    const stored = await t.services.db.selectFrom('password_reset_tokens').selectAll().execute();
    const token = new URL(linkIn(mail, 'http://localhost:3000/reset-password?token=')).searchParams.get(
      'token',
    )!;
    expect(stored.some((row) => row.token_hash.includes(token))).toBe(false);
    expect(stored.every((row) => /^[0-9a-f]{64}$/.test(row.token_hash))).toBe(true);
  });

  it('forgot-password: 422 for a missing or invalid email; form shows the page again', async () => {
    const missing = await t.client().post('/forgot-password', {});
    expect(missing.status).toBe(422);
    expect(missing.body.errors).toEqual({ email: 'Email is required.' });
    const invalid = await t.client().post('/forgot-password', { email: 'nope' }, 'spa');
    expect(invalid.status).toBe(422);
    expect(invalid.body.errors).toEqual({ email: 'Email must be a valid email address.' });
    const form = await t.client().post('/forgot-password', { email: 'nope' }, 'form');
    expect(form.status).toBe(422);
    expect(form.text).toContain('Email must be a valid email address.');
    expect(form.text).toContain('value="nope"');
  });

  it('forgot-password: form client gets 303 to /login with the flash', async () => {
    const user = await t.createUser();
    const client = t.client();
    const res = await client.post('/forgot-password', { email: user.email }, 'form');
    expect(res.status).toBe(303);
    expect(res.location).toBe('/login');
    expect((await client.get('/login', 'form')).text).toContain('If that address belongs to an account');
    await t.mail.waitFor(user.email);
  });

  it('forgot-password: 5 per address per hour, then 429 (same for unknown addresses)', async () => {
    const user = await t.createUser();
    for (const email of [user.email, 'unknown-limited@example.com']) {
      for (let i = 0; i < 5; i++)
        expect((await t.client().post('/forgot-password', { email })).status).toBe(200);
      const sixth = await t.client().post('/forgot-password', { email });
      expect(sixth.status).toBe(429);
      expect(sixth.headers['retry-after']).toBeDefined();
    }
    await t.mail.waitFor(user.email, { count: 5 });
  });

  it('forgot-password: 30 per IP per hour', async () => {
    for (let i = 0; i < 30; i++) {
      expect((await t.client().post('/forgot-password', { email: `ip-${i}@example.com` })).status).toBe(200);
    }
    expect((await t.client().post('/forgot-password', { email: 'ip-31@example.com' })).status).toBe(429);
  });

  it('GET /reset-password shows the form for a usable token and an error for a bad one', async () => {
    const user = await t.createUser();
    const token = await requestReset(user);
    const page = await t.client().get(`/reset-password?token=${encodeURIComponent(token)}`, 'form');
    expect(page.status).toBe(200);
    expect(page.text).toContain(`name="token" value="${token}"`);
    expect(page.text).toContain('name="password"');
    const json = await t.client().get(`/reset-password?token=${encodeURIComponent(token)}`);
    expect(json.body).toMatchObject({
      action: 'reset_password.show',
      status: 'info',
      data: { token_valid: true },
    });
    const bad = await t.client().get('/reset-password?token=not-a-real-token');
    expect(bad.status).toBe(422);
    expect(bad.body).toMatchObject({
      status: 'error',
      data: { token_valid: false },
      errors: { token: expect.any(String) },
    });
    const badPage = await t.client().get('/reset-password?token=not-a-real-token', 'form');
    expect(badPage.status).toBe(422);
    expect(badPage.text).toContain('This reset link is invalid or has expired.');
  });

  it('the emailed link resets the password once; a second use is 422 errors.token', async () => {
    const user = await t.createUser();
    const token = await requestReset(user);
    const res = await reset(token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      action: 'reset_password.attempt',
      status: 'success',
      statusCode: 200,
      message: expect.any(String),
      redirect_to: '/login',
    });
    // Does not sign in.
    expect(res.headers['set-cookie'] ?? '').not.toMatch(/citadel_session=[^;]/);
    expect((await t.client().post('/login', { email: user.email, password: TEST_PASSWORD })).status).toBe(
      401,
    );
    expect((await t.client().post('/login', { email: user.email, password: NEW_PASSWORD })).status).toBe(200);

    const again = await reset(token, 'another-new-password-7');
    expect(again.status).toBe(422);
    expect(again.body.errors).toEqual({ token: 'This reset link is invalid or has expired.' });
    expect((await t.client().post('/login', { email: user.email, password: NEW_PASSWORD })).status).toBe(200);
  });

  it('two concurrent uses of one token: exactly one succeeds', async () => {
    const user = await t.createUser();
    const token = await requestReset(user);
    const results = await Promise.all([
      reset(token, 'first-racer-password-1'),
      reset(token, 'second-racer-password-2'),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 422]);
  });

  it('an expired token (after 60 minutes) is 422 errors.token', async () => {
    const user = await t.createUser();
    const token = await requestReset(user);
    t.clock.advance(60 * 60 + 1);
    const res = await reset(token);
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ token: expect.any(String) });
    expect((await t.client().post('/login', { email: user.email, password: TEST_PASSWORD })).status).toBe(
      200,
    );
  });

  it('a token superseded by a newer request is 422; the newer one works', async () => {
    const user = await t.createUser();
    const older = await requestReset(user);
    const newer = await requestReset(user);
    expect(newer).not.toBe(older);
    expect((await reset(older)).status).toBe(422);
    expect((await reset(newer)).status).toBe(200);
  });

  it('password rules apply and a rejected password does not use up the token', async () => {
    const user = await t.createUser();
    const token = await requestReset(user);
    const short = await reset(token, 'short');
    expect(short.status).toBe(422);
    expect(short.body.errors).toEqual({ password: 'Password must be at least 8 characters.' });
    const common = await reset(token, 'password123');
    expect(common.body.errors).toEqual({ password: expect.stringContaining('too common') });
    const mismatch = await t
      .client()
      .post('/reset-password', { token, password: NEW_PASSWORD, password_confirm: 'x' });
    expect(mismatch.body.errors).toEqual({ password_confirm: 'Password confirmation does not match.' });
    const missing = await t.client().post('/reset-password', {});
    expect(Object.keys(missing.body.errors).sort()).toEqual(['password', 'password_confirm', 'token']);
    expect((await reset(token)).status).toBe(200);
  });

  it('a reset ends every session and remember-me token of the user (other users untouched)', async () => {
    const user = await t.createUser();
    const bystander = await t.createUser();
    const laptop = await t.signIn(user);
    const phone = t.client();
    await phone.post('/login', { email: user.email, password: TEST_PASSWORD, remember: 1 });
    const rememberValue = phone.cookie('citadel_remember')!;
    const other = await t.signIn(bystander);
    expect((await laptop.get('/me')).status).toBe(200);
    expect((await phone.get('/me')).status).toBe(200);

    const token = await requestReset(user);
    expect((await reset(token)).status).toBe(200);

    expect((await laptop.get('/me')).status).toBe(401);
    expect((await phone.get('/me')).status).toBe(401);
    const restored = t.client();
    restored.cookies.set('citadel_remember', rememberValue);
    expect((await restored.get('/me')).status).toBe(401);
    const remaining = await t.services.db
      .selectFrom('remember_tokens')
      .select('id')
      .where('user_id', '=', user.id)
      .execute();
    expect(remaining).toEqual([]);
    expect((await other.get('/me')).status).toBe(200);
  });

  it('form client: 303 to /login with a flash; a bad token shows the form again with the error', async () => {
    const user = await t.createUser();
    const token = await requestReset(user, 'form');
    const browser = t.client();
    const bad = await browser.post(
      '/reset-password',
      { token: 'wrong', password: NEW_PASSWORD, password_confirm: NEW_PASSWORD },
      'form',
    );
    expect(bad.status).toBe(422);
    expect(bad.text).toContain('This reset link is invalid or has expired.');
    expect(bad.text).not.toContain(NEW_PASSWORD);
    const ok = await browser.post(
      '/reset-password',
      { token, password: NEW_PASSWORD, password_confirm: NEW_PASSWORD },
      'form',
    );
    expect(ok.status).toBe(303);
    expect(ok.location).toBe('/login');
    expect((await browser.get('/login', 'form')).text).toContain('Your password was changed.');
  });

  it('SPA: forgot-password and reset-password answer with the envelope', async () => {
    const user = await t.createUser();
    const token = await requestReset(user, 'spa');
    const res = await t
      .client()
      .post('/reset-password', { token, password: NEW_PASSWORD, password_confirm: NEW_PASSWORD }, 'spa');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      action: 'reset_password.attempt',
      status: 'success',
      redirect_to: '/login',
    });
    const again = await t
      .client()
      .post('/reset-password', { token, password: NEW_PASSWORD, password_confirm: NEW_PASSWORD }, 'spa');
    expect(again.status).toBe(422);
    expect(again.body.errors).toEqual({ token: expect.any(String) });
  });

  it('forgot-password form post with a wrong _csrf: 403, no token stored, no mail', async () => {
    const user = await t.createUser();
    const res = await t.client().post('/forgot-password', { email: user.email, _csrf: 'wrong' }, 'form');
    expect(res.status).toBe(403);
    await t.mail.settled();
    expect(t.mail.to(user.email)).toEqual([]);
    const rows = await t.services.db
      .selectFrom('password_reset_tokens')
      .select('id')
      .where('user_id', '=', user.id)
      .execute();
    expect(rows).toEqual([]);
  });

  it('form post without _csrf: 403 and the token stays unused', async () => {
    const user = await t.createUser();
    const token = await requestReset(user);
    const res = await t
      .client()
      .post('/reset-password', { token, password: NEW_PASSWORD, password_confirm: NEW_PASSWORD }, 'form', {
        csrf: false,
      });
    expect(res.status).toBe(403);
    const row = await t.services.db
      .selectFrom('password_reset_tokens')
      .select('used_at')
      .where('user_id', '=', user.id)
      .where('used_at', 'is', null)
      .execute();
    expect(row.length).toBe(1);
    expect((await reset(token)).status).toBe(200);
  });
});
