import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, TEST_PASSWORD, type TestApp } from '../support/app.ts';
import { createTestDatabase } from '../support/databases.ts';
import type { TestResponse } from '../support/client.ts';
import { sha256Hex } from '../../src/core/crypto.ts';
import { REDIS_URL, redisAvailable } from '../support/services.ts';

function sessionSetCookie(res: TestResponse): string | undefined {
  const raw = res.headers['set-cookie'];
  const list = Array.isArray(raw) ? raw : raw ? [String(raw)] : [];
  return list.find((c) => c.startsWith('citadel_session='));
}

const redisUp = await redisAvailable();

describe('session cookie and id rotation', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t?.close());

  it('cookie: HttpOnly, SameSite=Lax, Path=/, no Secure over http, at least 128 bits, stored only hashed', async () => {
    const user = await t.createUser();
    const client = t.client();
    const res = await client.post('/login', { email: user.email, password: TEST_PASSWORD });
    const header = sessionSetCookie(res)!;
    expect(header).toBeDefined();
    expect(header).toContain('HttpOnly');
    expect(header).toContain('SameSite=Lax');
    expect(header).toContain('Path=/');
    expect(header).not.toContain('Secure');
    expect(header).not.toMatch(/Max-Age|Expires/);
    const value = client.cookie('citadel_session')!;
    expect(Buffer.from(value, 'base64url').length).toBeGreaterThanOrEqual(16);
    const rows = await t.services.db.selectFrom('sessions').select('id').execute();
    expect(rows.some((r) => r.id === value)).toBe(false);
    expect(rows.some((r) => r.id === sha256Hex(value))).toBe(true);
  });

  it('anonymous JSON traffic creates no session', async () => {
    const client = t.client();
    const res = await client.get('/me');
    expect(res.status).toBe(401);
    expect(sessionSetCookie(res)).toBeUndefined();
  });

  it('the id changes at sign-in (fixation) and at sign-out; old ids are dead', async () => {
    const user = await t.createUser();
    const client = t.client();
    await client.get('/login', 'form'); // the attacker-planted anonymous session
    const planted = client.cookie('citadel_session')!;
    expect(planted).toBeDefined();
    await client.post('/login', { email: user.email, password: TEST_PASSWORD }, 'form');
    const signedIn = client.cookie('citadel_session')!;
    expect(signedIn).not.toBe(planted);
    const attacker = t.client();
    attacker.cookies.set('citadel_session', planted);
    expect((await attacker.get('/me')).status).toBe(401);
    expect((await client.get('/me')).status).toBe(200);

    await client.post('/logout');
    const after = client.cookie('citadel_session');
    expect(after).not.toBe(signedIn);
    const stale = t.client();
    stale.cookies.set('citadel_session', signedIn);
    expect((await stale.get('/me')).status).toBe(401);
    const stored = await t.services.db
      .selectFrom('sessions')
      .select('id')
      .where('id', 'in', [sha256Hex(planted), sha256Hex(signedIn)])
      .execute();
    expect(stored).toEqual([]);
  });

  it('a session expires after the idle lifetime (2 hours) and is refreshed by use', async () => {
    const user = await t.createUser();
    const client = await t.signIn(user);
    t.clock.advance(100 * 60);
    expect((await client.get('/me')).status).toBe(200);
    t.clock.advance(100 * 60);
    expect((await client.get('/me')).status).toBe(200);
    t.clock.advance(2 * 3600 + 1);
    expect((await client.get('/me')).status).toBe(401);
  });

  it('sign-out clears everything the session held', async () => {
    const user = await t.createUser();
    const client = await t.signIn(user);
    await client.get('/login', 'form'); // puts a CSRF token into the session
    const hash = sha256Hex(client.cookie('citadel_session')!);
    const row = await t.services.db
      .selectFrom('sessions')
      .selectAll()
      .where('id', '=', hash)
      .executeTakeFirstOrThrow();
    expect(row.user_id).toBe(user.id);
    await client.get('/logout');
    const fresh = await t.services.db
      .selectFrom('sessions')
      .selectAll()
      .where('id', '=', sha256Hex(client.cookie('citadel_session')!))
      .executeTakeFirst();
    expect(fresh).toBeDefined();
    expect(fresh!.user_id).toBeNull();
    expect(JSON.parse(fresh!.data)).toEqual({});
    expect(await t.services.db.selectFrom('sessions').select('id').where('id', '=', hash).execute()).toEqual(
      [],
    );
  });
});

describe('Secure cookies when APP_URL is https', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ appUrl: 'https://citadel.example.com' });
  });
  afterAll(async () => t?.close());

  it('sets Secure on the session, remember and device cookies, and HSTS', async () => {
    const user = await t.createUser();
    const res = await t.client().post('/login', { email: user.email, password: TEST_PASSWORD, remember: 1 });
    const raw = res.headers['set-cookie'];
    const list = Array.isArray(raw) ? raw : [String(raw)];
    expect(list.map((cookie) => cookie.split('=')[0]).sort()).toEqual([
      'citadel_device',
      'citadel_remember',
      'citadel_session',
    ]);
    for (const cookie of list) expect(cookie).toContain('Secure');
    expect(res.headers['strict-transport-security']).toBeDefined();
  });
});

describe('sessions survive a restart (database store)', () => {
  it('sign in, stop the server, start another on the same database: still signed in', async () => {
    const database = await createTestDatabase();
    try {
      const first = await startTestApp({ sharedDatabase: database });
      const user = await first.createUser();
      const client = await first.signIn(user);
      await first.close();
      const second = await startTestApp({ sharedDatabase: database });
      try {
        client.useApp(second.app);
        const me = await client.get('/me');
        expect(me.status).toBe(200);
        expect(me.body.user.id).toBe(user.id);
      } finally {
        await second.close();
      }
    } finally {
      await database.drop();
    }
  });
});

describe('two instances sharing one database', () => {
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    a = await startTestApp();
    b = await startTestApp({ sharedDatabase: a.database, sharedMail: a.mail });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('sign in through one, be signed in on the other; sign out on the other ends it on both', async () => {
    const user = await a.createUser();
    const client = await a.signIn(user);
    client.useApp(b.app);
    expect((await client.get('/me')).body.user.id).toBe(user.id);
    const cookie = client.cookie('citadel_session')!;
    await client.post('/logout');
    const old = a.client();
    old.cookies.set('citadel_session', cookie);
    expect((await old.get('/me')).status).toBe(401);
  });

  it('a CSRF token issued by one instance is accepted by the other', async () => {
    const user = await a.createUser();
    const browser = a.client();
    const token = await browser.csrfToken();
    browser.useApp(b.app);
    const res = await browser.post(
      '/login',
      { email: user.email, password: TEST_PASSWORD, _csrf: token },
      'form',
    );
    expect(res.status).toBe(303);
  });

  it('login failures are counted across instances', async () => {
    const user = await a.createUser();
    for (let i = 0; i < 5; i++) {
      const app = i % 2 === 0 ? a : b;
      expect((await app.client().post('/login', { email: user.email, password: `bad-${i}-pw` })).status).toBe(
        401,
      );
    }
    expect((await b.client().post('/login', { email: user.email, password: 'bad-x-pw' })).status).toBe(429);
  });
});

describe.skipIf(!redisUp)('two instances sharing Redis for sessions', () => {
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    a = await startTestApp({ redisUrl: REDIS_URL });
    // A separate database: only Redis is shared, so the session can only come from there.
    b = await startTestApp({ redisUrl: REDIS_URL, sharedMail: a.mail });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('sign in through one, be signed in on the other; nothing is written to the sessions table', async () => {
    const user = await a.createUser();
    // The same user id must exist on b's database for the caller to resolve.
    const twin = await b.createUser({ username: user.username, email: user.email });
    expect(twin.id).toBe(user.id);
    const client = await a.signIn(user);
    client.useApp(b.app);
    const me = await client.get('/me');
    expect(me.status).toBe(200);
    expect(me.body.user.id).toBe(user.id);
    const rows = await a.services.db.selectFrom('sessions').select('id').execute();
    expect(rows).toEqual([]);
    const key = `citadel:session:${sha256Hex(client.cookie('citadel_session')!)}`;
    expect(await a.server.redis!.exists(key)).toBe(1);

    await client.post('/logout');
    expect(await a.server.redis!.exists(key)).toBe(0);
  });

  it('login failures are counted in Redis, across instances', async () => {
    const email = `redis-${Date.now()}-${Math.random().toString(36).slice(2)}@example.com`;
    for (let i = 0; i < 5; i++) {
      const app = i % 2 === 0 ? a : b;
      expect((await app.client().post('/login', { email, password: `bad-${i}-pw` })).status).toBe(401);
    }
    const sixth = await b.client().post('/login', { email, password: 'bad-x-pw' });
    expect(sixth.status).toBe(429);
    expect(Number(sixth.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(await a.services.db.selectFrom('rate_limits').select('key').execute()).toEqual([]);
  });

  it('destroyForUser ends every Redis session of the user', async () => {
    const user = await a.createUser();
    const one = await a.signIn(user);
    const two = await a.signIn(user);
    await a.services.sessions.destroyForUser(user.id);
    expect((await one.get('/me')).status).toBe(401);
    expect((await two.get('/me')).status).toBe(401);
  });
});
