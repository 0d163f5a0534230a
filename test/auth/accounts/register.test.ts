import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.ts';

const PASSWORD = 'quiet-river-stone-42';

function body(over: Record<string, string> = {}) {
  const n = Math.random().toString(36).slice(2, 10);
  return {
    username: `user ${n}`,
    email: `u${n}@example.com`,
    password: PASSWORD,
    password_confirm: PASSWORD,
    ...over,
  };
}

describe('POST /register', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t?.close());
  // Fresh send-limit windows (30 per IP per hour) for every test.
  beforeEach(() => t.clock.advance(2 * 3600));

  const userCount = async () =>
    Number(
      (
        await t.services.db
          .selectFrom('users')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('REST: 201, user with the email lower-cased, signed in, password hashed with Argon2id', async () => {
    const client = t.client();
    const res = await client.post(
      '/register',
      body({ username: 'Anna Lee 7', email: ' Anna.Lee@Example.COM ' }),
    );
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      action: 'register.attempt',
      status: 'success',
      statusCode: 201,
      message: expect.any(String),
      redirect_to: '/',
      user: { id: expect.any(Number), username: 'Anna Lee 7', email: 'anna.lee@example.com', active: true },
    });
    expect((await client.get('/me')).body.user.username).toBe('Anna Lee 7');
    const row = await t.services.users.findById(res.body.user.id);
    expect(row!.email).toBe('anna.lee@example.com');
    expect(row!.password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
  });

  it('SPA: 201 envelope', async () => {
    const res = await t.client().post('/register', body(), 'spa');
    expect(res.status).toBe(201);
    expect(res.body.action).toBe('register.attempt');
  });

  it('form: 303 to / with a flash, signed in', async () => {
    const client = t.client();
    const res = await client.post('/register', body({ username: 'Form User' }), 'form');
    expect(res.status).toBe(303);
    expect(res.location).toBe('/');
    const home = await client.get('/', 'form');
    expect(home.text).toContain('Your account was created and you are signed in.');
    expect(home.text).toContain('Form User');
    expect((await client.get('/', 'form')).text).not.toContain('Your account was created');
  });

  it.each([
    ['ab', 'Username must be at least 3 characters.'],
    ['a'.repeat(31), 'Username must be at most 30 characters.'],
    ['bad_name!', 'Username may contain only letters, digits and spaces.'],
    ['', 'Username is required.'],
  ])('username %j -> 422', async (username, message) => {
    const before = await userCount();
    const res = await t.client().post('/register', body({ username }));
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ username: message });
    expect(await userCount()).toBe(before);
  });

  it('accepts usernames of exactly 3 and 30 letters, digits and spaces', async () => {
    expect((await t.client().post('/register', body({ username: 'ab1' }))).status).toBe(201);
    expect((await t.client().post('/register', body({ username: 'A b'.padEnd(30, 'x') }))).status).toBe(201);
  });

  it('username and email are unique case-insensitively', async () => {
    await t.client().post('/register', body({ username: 'Unique One', email: 'unique.one@example.com' }));
    const sameName = await t.client().post('/register', body({ username: 'UNIQUE one' }));
    expect(sameName.status).toBe(422);
    expect(sameName.body.errors).toEqual({ username: 'This username is already taken.' });
    const sameEmail = await t.client().post('/register', body({ email: 'Unique.ONE@example.com' }));
    expect(sameEmail.status).toBe(422);
    expect(sameEmail.body.errors).toEqual({ email: 'This email address is already registered.' });
  });

  it('two registrations racing for one email or username: one 201, one 422 (never a 500)', async () => {
    const a = body({ username: 'Racer One', email: 'racer@example.com' });
    const b = body({ username: 'Racer Two', email: 'RACER@example.com' });
    const byEmail = await Promise.all([t.client().post('/register', a), t.client().post('/register', b)]);
    expect(byEmail.map((r) => r.status).sort()).toEqual([201, 422]);
    expect(byEmail.find((r) => r.status === 422)!.body.errors).toEqual({ email: expect.any(String) });
    const c = body({ username: 'Same Racer' });
    const d = body({ username: 'same racer' });
    const byName = await Promise.all([t.client().post('/register', c), t.client().post('/register', d)]);
    expect(byName.map((r) => r.status).sort()).toEqual([201, 422]);
    expect(byName.find((r) => r.status === 422)!.body.errors).toEqual({ username: expect.any(String) });
  });

  it.each([
    [{ email: 'not-an-email' }, 'email', 'Email must be a valid email address.'],
    [
      { password: 'short7!', password_confirm: 'short7!' },
      'password',
      'Password must be at least 8 characters.',
    ],
    [
      { password: 'x'.repeat(257), password_confirm: 'x'.repeat(257) },
      'password',
      'Password must be at most 256 characters.',
    ],
    [
      { password: 'password1', password_confirm: 'password1' },
      'password',
      'This password is too common. Please choose another one.',
    ],
    [
      { password: 'Qwerty123', password_confirm: 'Qwerty123' },
      'password',
      'This password is too common. Please choose another one.',
    ],
    [{ password_confirm: 'something-else-1' }, 'password_confirm', 'Password confirmation does not match.'],
    [{ password_confirm: '' }, 'password_confirm', 'Password confirmation is required.'],
  ])('%j -> 422 errors.%s', async (over, field, message) => {
    const before = await userCount();
    const res = await t.client().post('/register', body(over as Record<string, string>));
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ status: 'error', statusCode: 422, message: 'Validation failed.' });
    expect(res.body.errors).toEqual({ [field]: message });
    expect(await userCount()).toBe(before);
  });

  it('accepts a 256-character password', async () => {
    const long = 'Zq9!'.repeat(64);
    const res = await t.client().post('/register', body({ password: long, password_confirm: long }));
    expect(res.status).toBe(201);
  });

  it('reports every invalid field at once', async () => {
    const res = await t.client().post('/register', {});
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors).sort()).toEqual([
      'email',
      'password',
      'password_confirm',
      'username',
    ]);
  });

  it('form: 422 shows the page again with the errors and the input, never the password', async () => {
    const res = await t
      .client()
      .post(
        '/register',
        body({ username: 'Kept Name', email: 'kept@example.com', password_confirm: 'Other-Secret-99' }),
        'form',
      );
    expect(res.status).toBe(422);
    expect(res.headers['content-type']).toContain('text/html');
    expect(res.text).toContain('Password confirmation does not match.');
    expect(res.text).toContain('value="Kept Name"');
    expect(res.text).toContain('value="kept@example.com"');
    expect(res.text).not.toContain(PASSWORD);
    expect(res.text).not.toContain('Other-Secret-99');
  });

  it('form: re-filled input is HTML-escaped', async () => {
    const evil = '"><script>alert(1)</script>';
    const res = await t.client().post('/register', body({ username: evil, email: `${evil}@x.io` }), 'form');
    expect(res.status).toBe(422);
    expect(res.text).not.toContain('<script>alert(1)</script>');
    expect(res.text).toContain('value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"');
  });

  it('form post without or with a wrong _csrf: 403 and no user written', async () => {
    const before = await userCount();
    const missing = await t
      .client()
      .post('/register', body({ email: 'csrf1@example.com' }), 'form', { csrf: false });
    expect(missing.status).toBe(403);
    const wrong = await t
      .client()
      .post('/register', body({ email: 'csrf2@example.com', _csrf: 'forged-token-value' }), 'form');
    expect(wrong.status).toBe(403);
    expect(await userCount()).toBe(before);
    expect(await t.services.users.findByEmail('csrf1@example.com')).toBeUndefined();
    expect(await t.services.users.findByEmail('csrf2@example.com')).toBeUndefined();
  });

  it('a form-encoded post with an Accept: application/json header still needs the CSRF token', async () => {
    const res = await t.client().post('/register', body({ email: 'csrf3@example.com' }), 'form', {
      csrf: false,
      headers: { accept: 'application/json' },
    });
    expect(res.status).toBe(403);
    expect(await t.services.users.findByEmail('csrf3@example.com')).toBeUndefined();
  });

  it('at most 5 registrations per address per hour (429 with Retry-After), counted before any lookup', async () => {
    const email = 'limited@example.com';
    for (let i = 0; i < 5; i++) {
      const res = await t.client().post('/register', body({ email, password_confirm: 'mismatch-pw-1' }));
      expect(res.status).toBe(422);
    }
    const sixth = await t.client().post('/register', body({ email }));
    expect(sixth.status).toBe(429);
    expect(Number(sixth.headers['retry-after'])).toBeGreaterThan(3000);
    expect(await t.services.users.findByEmail(email)).toBeUndefined();
    t.clock.advance(3601);
    expect((await t.client().post('/register', body({ email }))).status).toBe(201);
  });

  it('at most 30 registrations per IP per hour', async () => {
    for (let i = 0; i < 30; i++) {
      const res = await t.client().post('/register', body({ password_confirm: 'mismatch-pw-2' }));
      expect(res.status).toBe(422);
    }
    const over = await t.client().post('/register', body());
    expect(over.status).toBe(429);
    expect(over.headers['retry-after']).toBeDefined();
  });
});
