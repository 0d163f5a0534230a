import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestApp, TEST_PASSWORD, type TestApp } from '../../support/app.ts';
import type { UserRecord } from '../../../src/auth/core/users.ts';
import { PasswordHasher } from '../../../src/auth/core/passwords.ts';
import { accountsOptions } from '../../../src/auth/accounts/options.ts';

describe('POST /login, GET /me, logout', () => {
  let t: TestApp;
  let user: UserRecord;
  beforeAll(async () => {
    t = await startTestApp();
    user = await t.createUser({ username: 'Mixed Case Name', email: 'mixed.case@example.com' });
  });
  afterAll(async () => t?.close());
  // Every test starts with fresh rate-limit windows.
  beforeEach(() => t.clock.advance(2 * 3600));

  it('signs in by email, case-insensitive and trimmed (REST)', async () => {
    const client = t.client();
    const res = await client.post('/login', { email: '  MIXED.Case@Example.COM ', password: TEST_PASSWORD });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      action: 'login.attempt',
      status: 'success',
      statusCode: 200,
      message: expect.any(String),
      redirect_to: '/',
      user: { id: user.id, username: 'Mixed Case Name', email: 'mixed.case@example.com', active: true },
    });
    const me = await client.get('/me');
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({
      action: 'me',
      status: 'success',
      statusCode: 200,
      user: { id: user.id },
    });
  });

  it('signs in by username in either field, case-insensitive (SPA)', async () => {
    const a = t.client();
    const byUsername = await a.post(
      '/login',
      { username: 'mixed CASE name', password: TEST_PASSWORD },
      'spa',
    );
    expect(byUsername.status).toBe(200);
    expect(byUsername.body.user.id).toBe(user.id);
    const b = t.client();
    const inEmailField = await b.post('/login', { email: 'MIXED case NAME', password: TEST_PASSWORD }, 'spa');
    expect(inEmailField.status).toBe(200);
    expect(inEmailField.body.user.id).toBe(user.id);
    expect((await b.get('/me', 'spa')).body.user.id).toBe(user.id);
  });

  it('form client: 303 to / with a one-time flash message', async () => {
    const client = t.client();
    const res = await client.post('/login', { email: user.email, password: TEST_PASSWORD }, 'form');
    expect(res.status).toBe(303);
    expect(res.location).toBe('/');
    const home = await client.get('/', 'form');
    expect(home.status).toBe(200);
    expect(home.text).toContain('You are signed in.');
    expect(home.text).toContain('Mixed Case Name');
    const again = await client.get('/', 'form');
    expect(again.text).not.toContain('You are signed in.');
  });

  it('an email differing only by an accent is another identifier on every dialect', async () => {
    const accented = await t.createUser({ email: 'josé.accent@example.com' });
    const res = await t
      .client()
      .post('/login', { email: 'jose.accent@example.com', password: TEST_PASSWORD });
    expect(res.status).toBe(401);
    expect((await t.client().post('/login', { email: accented.email, password: TEST_PASSWORD })).status).toBe(
      200,
    );
    expect(await t.services.users.findByEmail('jose.accent@example.com')).toBeUndefined();
    const plain = await t.client().post('/register', {
      username: 'Plain Jose',
      email: 'jose.accent@example.com',
      password: 'plain-jose-password-1',
      password_confirm: 'plain-jose-password-1',
    });
    expect(plain.status).toBe(201);
  });

  it('gives the same 401 body for an unknown account and a wrong password', async () => {
    const unknown = await t.client().post('/login', { email: 'nobody@example.com', password: TEST_PASSWORD });
    const wrong = await t.client().post('/login', { email: user.email, password: 'wrong password here' });
    expect(unknown.status).toBe(401);
    expect(wrong.status).toBe(401);
    expect(unknown.body).toEqual(wrong.body);
    expect(wrong.body).toEqual({
      action: 'login.attempt',
      status: 'error',
      statusCode: 401,
      message: 'Invalid credentials.',
      errors: { credentials: expect.any(String) },
    });
  });

  it('form client: a wrong password shows the form again with the error and the email, never the password', async () => {
    const res = await t.client().post('/login', { email: user.email, password: 'wrong-pass-xyz' }, 'form');
    expect(res.status).toBe(401);
    expect(res.text).toContain('The email, username or password is incorrect.');
    expect(res.text).toContain(`value="${user.email}"`);
    expect(res.text).not.toContain('wrong-pass-xyz');
  });

  it('422 with one message per missing field (REST, SPA and form)', async () => {
    const rest = await t.client().post('/login', {});
    expect(rest.status).toBe(422);
    expect(rest.body).toMatchObject({ status: 'error', message: 'Validation failed.' });
    expect(Object.keys(rest.body.errors).sort()).toEqual(['email', 'password']);
    const spa = await t.client().post('/login', { email: user.email }, 'spa');
    expect(spa.status).toBe(422);
    expect(spa.body.errors).toEqual({ password: expect.any(String) });
    const form = await t.client().post('/login', { email: 'kept@example.com' }, 'form');
    expect(form.status).toBe(422);
    expect(form.text).toContain('Password is required.');
    expect(form.text).toContain('value="kept@example.com"');
  });

  it('form post with a wrong _csrf: 403, the form again with a fresh token, not signed in', async () => {
    const browser = t.client();
    const res = await browser.post(
      '/login',
      { email: user.email, password: TEST_PASSWORD, _csrf: 'forged' },
      'form',
    );
    expect(res.status).toBe(403);
    expect(res.text).toContain('The form has expired or was not sent from this site.');
    expect(res.text).toMatch(/name="_csrf" value="[\w-]{43}"/);
    expect(res.text).not.toContain(TEST_PASSWORD);
    expect((await browser.get('/me')).status).toBe(401);
    // The page's token works.
    const token = /name="_csrf" value="([\w-]+)"/.exec(res.text)![1]!;
    const ok = await browser.post(
      '/login',
      { email: user.email, password: TEST_PASSWORD, _csrf: token },
      'form',
    );
    expect(ok.status).toBe(303);
  });

  it('refuses a disabled account with the right password (403) and without it (401)', async () => {
    const disabled = await t.createUser({ active: false });
    const right = await t.client().post('/login', { email: disabled.email, password: TEST_PASSWORD });
    expect(right.status).toBe(403);
    expect(right.body).toMatchObject({ status: 'error', statusCode: 403 });
    expect(right.body.user).toBeUndefined();
    const wrong = await t.client().post('/login', { email: disabled.email, password: 'not the password' });
    expect(wrong.status).toBe(401);
  });

  it('the sixth failure within a minute is 429 with Retry-After; after the window it works again', async () => {
    const client = t.client();
    for (let i = 0; i < 5; i++) {
      const res = await client.post('/login', { email: user.email, password: `wrong-${i}-password` });
      expect(res.status).toBe(401);
    }
    const sixth = await client.post('/login', { email: user.email, password: 'wrong-6-password' });
    expect(sixth.status).toBe(429);
    const retryAfter = Number(sixth.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // Even the right password is refused while the window lasts.
    const right = await client.post('/login', { email: user.email, password: TEST_PASSWORD });
    expect(right.status).toBe(429);
    t.clock.advance(61);
    const later = await client.post('/login', { email: user.email, password: TEST_PASSWORD });
    expect(later.status).toBe(200);
  });

  it('concurrent guesses cannot slip under the limit together: at most 5 passwords are checked', async () => {
    const target = await t.createUser();
    const guesses = Array.from({ length: 30 }, (_, i) => `guess-${i}-pw`);
    guesses.push(TEST_PASSWORD);
    const results = await Promise.all(
      guesses.map((password) => t.client().post('/login', { email: target.email, password })),
    );
    // 429 says nothing about the password; any other answer (401 or 200) means it was checked.
    const checked = results.filter((r) => r.status !== 429);
    expect(checked.length).toBeLessThanOrEqual(5);
  });

  it('the failure limit is per identifier: another account from the same IP is not blocked', async () => {
    const other = await t.createUser();
    for (let i = 0; i < 6; i++)
      await t.client().post('/login', { email: user.email, password: `bad-${i}-pw` });
    expect((await t.client().post('/login', { email: user.email, password: TEST_PASSWORD })).status).toBe(
      429,
    );
    expect((await t.client().post('/login', { email: other.email, password: TEST_PASSWORD })).status).toBe(
      200,
    );
  });

  it('limits failures per account per hour across identifiers (both its email and its username)', async () => {
    const target = await t.createUser();
    const hourly = accountsOptions(t.services).loginFailuresPerAccount;
    // Spread the failures over minute windows so the per-minute pair limit never triggers.
    let failures = 0;
    while (failures < hourly) {
      for (let i = 0; i < 4 && failures < hourly; i++, failures++) {
        const identifier = failures % 2 === 0 ? target.email : target.username;
        const res = await t.client().post('/login', { email: identifier, password: `bad-${failures}-pw` });
        expect(res.status).toBe(401);
      }
      t.clock.advance(61);
    }
    const blocked = await t.client().post('/login', { email: target.email, password: TEST_PASSWORD });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(60);
    t.clock.advance(3600);
    expect(
      (await t.client().post('/login', { email: target.username, password: TEST_PASSWORD })).status,
    ).toBe(200);
  });

  it('identifiers as long as the fields allow are counted like any other (no 500 on any dialect)', async () => {
    const long = 'a'.repeat(179) + '@example.com';
    expect(long.length).toBe(191);
    for (let i = 0; i < 5; i++) {
      expect((await t.client().post('/login', { email: long, password: `bad-${i}-password` })).status).toBe(
        401,
      );
    }
    expect((await t.client().post('/login', { email: long, password: 'bad-6-password' })).status).toBe(429);
    // Another long identifier with the same beginning has its own counter.
    const sibling = 'a'.repeat(178) + 'b@example.com';
    expect((await t.client().post('/login', { email: sibling, password: 'bad-password' })).status).toBe(401);
    // A mailbox of the same length (local part at most 64 characters, RFC 5321) for the send limits.
    const longMailbox = `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(50)}.example.com`;
    expect(longMailbox.length).toBe(191);
    expect((await t.client().post('/forgot-password', { email: longMailbox })).status).toBe(200);
  });

  it('rehashes a password made with other Argon2 parameters at sign-in', async () => {
    const old = await new PasswordHasher({ memoryCost: 8192, timeCost: 1, parallelism: 1 }).hash(
      TEST_PASSWORD,
    );
    const legacy = await t.createUser();
    await t.services.users.setPasswordHash(legacy.id, old);
    expect((await t.client().post('/login', { email: legacy.email, password: TEST_PASSWORD })).status).toBe(
      200,
    );
    const stored = (await t.services.users.findById(legacy.id))!.password_hash!;
    expect(stored).not.toBe(old);
    expect(stored).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect((await t.client().post('/login', { email: legacy.email, password: TEST_PASSWORD })).status).toBe(
      200,
    );
  });

  it('GET /me without a caller: 401 with redirect_to /login; a form client is sent to /login', async () => {
    const rest = await t.client().get('/me');
    expect(rest.status).toBe(401);
    expect(rest.body).toMatchObject({
      action: 'me',
      status: 'error',
      statusCode: 401,
      redirect_to: '/login',
    });
    const form = await t.client().get('/me', 'form');
    expect(form.status).toBe(303);
    expect(form.location).toBe('/login');
  });

  it('POST /logout ends the session (REST and SPA)', async () => {
    for (const kind of ['json', 'spa'] as const) {
      const client = await t.signIn(user);
      const res = await client.post('/logout', undefined, kind);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        action: 'logout',
        status: 'success',
        statusCode: 200,
        message: expect.any(String),
        redirect_to: '/login',
      });
      expect((await client.get('/me')).status).toBe(401);
    }
  });

  it('GET /logout ends the session; the form client gets 303 to /login with a flash shown once', async () => {
    const rest = await t.signIn(user);
    expect((await rest.get('/logout')).body).toMatchObject({ action: 'logout', status: 'success' });
    expect((await rest.get('/me')).status).toBe(401);

    const browser = await t.signIn(user);
    const res = await browser.get('/logout', 'form');
    expect(res.status).toBe(303);
    expect(res.location).toBe('/login');
    const page = await browser.get('/login', 'form');
    expect(page.text).toContain('You have been signed out.');
    expect((await browser.get('/login', 'form')).text).not.toContain('You have been signed out.');
    expect((await browser.get('/me')).status).toBe(401);
  });

  it('POST /logout from a form needs the CSRF token: without it 403 and the session lives on', async () => {
    const browser = await t.signIn(user);
    const res = await browser.post('/logout', {}, 'form', { csrf: false });
    expect(res.status).toBe(403);
    expect((await browser.get('/me')).status).toBe(200);
    const ok = await browser.post('/logout', {}, 'form');
    expect(ok.status).toBe(303);
    expect((await browser.get('/me')).status).toBe(401);
  });
});
