import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, TEST_PASSWORD, type TestApp } from '../../support/app.ts';
import { TestClient } from '../../support/client.ts';
import { FIREFOX_LINUX, SAFARI_IPHONE, storedEvents } from '../../support/security-events.ts';
import { elevate } from '../../support/sudo.ts';
import { REDIS_URL, redisAvailable } from '../../support/services.ts';
import { randomInt } from 'node:crypto';

async function signInWith(
  t: TestApp,
  email: string,
  userAgent: string,
  remember = false,
): Promise<TestClient> {
  const client = t.client();
  const response = await client.post('/login', { email, password: TEST_PASSWORD, remember }, 'json', {
    headers: { 'user-agent': userAgent },
  });
  expect(response.status, response.text).toBe(200);
  return client;
}

describe('sessions and devices', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t?.close());

  it('lists every session with device facts and opaque ids, never the cookie or its hash', async () => {
    const user = await t.createUser();
    const laptop = await signInWith(t, user.email, FIREFOX_LINUX, true);
    const phone = await signInWith(t, user.email, SAFARI_IPHONE);
    const list = await laptop.get('/sessions', 'json', { headers: { 'user-agent': FIREFOX_LINUX } });
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ action: 'sessions.index', status: 'success', statusCode: 200 });
    const sessions = list.body.data.sessions as Record<string, unknown>[];
    expect(sessions).toHaveLength(2);
    const current = sessions.find((s) => s.current)!;
    const other = sessions.find((s) => !s.current)!;
    expect(current).toMatchObject({
      device: 'Firefox on Linux',
      remembered: true,
      user_agent: FIREFOX_LINUX,
    });
    expect(other).toMatchObject({ device: 'Safari on iOS', remembered: false, current: false });
    for (const s of sessions) {
      expect(Object.keys(s).sort()).toEqual(
        ['created_at', 'current', 'device', 'id', 'ip', 'last_seen_at', 'remembered', 'user_agent'].sort(),
      );
      expect(String(s.id)).not.toBe(laptop.cookie('citadel_session'));
      expect(String(s.id)).not.toBe(phone.cookie('citadel_session'));
      expect(String(s.id).length).toBeLessThan(40);
    }
    expect(list.text).not.toContain(laptop.cookie('citadel_session')!);
    expect(list.text).not.toContain(phone.cookie('citadel_session')!);
  });

  it('writes last_seen_at at most once a minute', async () => {
    const user = await t.createUser();
    const client = await signInWith(t, user.email, FIREFOX_LINUX);
    const first = (await client.get('/sessions')).body.data.sessions[0].last_seen_at;
    t.clock.advance(30);
    const again = await client.get('/sessions');
    expect(again.status, again.text).toBe(200);
    expect(again.body.data.sessions[0].last_seen_at).toBe(first);
    t.clock.advance(31);
    const later = (await client.get('/sessions')).body.data.sessions[0].last_seen_at;
    expect(later > first).toBe(true);
    expect(new Date(later).getTime() - new Date(first).getTime()).toBeGreaterThanOrEqual(60_000);
  });

  for (const kind of ['json', 'spa', 'form'] as const) {
    it(`revokes one session and its remember-me token at once (${kind})`, async () => {
      const user = await t.createUser();
      const me = await signInWith(t, user.email, FIREFOX_LINUX);
      const other = await signInWith(t, user.email, SAFARI_IPHONE, true);
      const remembered = other.cookie('citadel_remember')!;
      const id = (await me.get('/sessions')).body.data.sessions.find(
        (s: { current: boolean }) => !s.current,
      ).id;
      const revoked =
        kind === 'json'
          ? await me.delete(`/sessions/${id}`)
          : await me.post(`/sessions/revoke/${id}`, {}, kind);
      if (kind === 'form') {
        expect(revoked.status).toBe(303);
        expect(revoked.location).toBe('/sessions');
      } else {
        expect(revoked.status).toBe(200);
        expect(revoked.body).toMatchObject({ action: 'sessions.revoke', status: 'success' });
      }
      // The other browser is out, and its remember-me cookie does not bring it back.
      expect((await other.get('/me')).status).toBe(401);
      const restored = new TestClient(t.app);
      restored.cookies.set('citadel_remember', remembered);
      expect((await restored.get('/me')).status).toBe(401);
      expect((await me.get('/me')).status).toBe(200);
      const events = await storedEvents(t, user.id);
      expect(events.filter((e) => e.type === 'session_revoked')).toHaveLength(1);
    });
  }

  it("answers 404 for someone else's session and for unknown ids, and ends nothing", async () => {
    const alice = await t.createUser();
    const bob = await t.createUser();
    const aliceClient = await signInWith(t, alice.email, FIREFOX_LINUX);
    const bobClient = await signInWith(t, bob.email, FIREFOX_LINUX);
    const bobsId = (await bobClient.get('/sessions')).body.data.sessions[0].id;
    for (const response of [
      await aliceClient.delete(`/sessions/${bobsId}`),
      await aliceClient.post(`/sessions/revoke/${bobsId}`),
      await aliceClient.delete('/sessions/nope'),
      await aliceClient.delete(`/sessions/${'x'.repeat(80)}`),
    ]) {
      expect(response.status).toBe(404);
      expect(response.body).toMatchObject({ action: 'sessions.revoke', status: 'error', statusCode: 404 });
    }
    expect((await bobClient.get('/me')).status).toBe(200);
  });

  it('revoking the current session signs this browser out', async () => {
    const user = await t.createUser();
    const client = await signInWith(t, user.email, FIREFOX_LINUX);
    const id = (await client.get('/sessions')).body.data.sessions[0].id;
    const response = await client.post(`/sessions/revoke/${id}`);
    expect(response.body).toMatchObject({ action: 'sessions.revoke', redirect_to: '/login' });
    expect((await client.get('/me')).status).toBe(401);
  });

  for (const kind of ['json', 'spa', 'form'] as const) {
    it(`revoke-others ends every other session and remember-me token, keeps this one (${kind})`, async () => {
      const user = await t.createUser();
      const me = await signInWith(t, user.email, FIREFOX_LINUX, true);
      const others = [
        await signInWith(t, user.email, SAFARI_IPHONE, true),
        await signInWith(t, user.email, SAFARI_IPHONE),
      ];
      const response = await me.post('/sessions/revoke-others', {}, kind);
      if (kind === 'form') expect(response.status).toBe(303);
      else expect(response.body).toMatchObject({ action: 'sessions.revoke_others', data: { revoked: 2 } });
      for (const other of others) expect((await other.get('/me')).status).toBe(401);
      expect((await me.get('/me')).status).toBe(200);
      const rows = await t.services.db
        .selectFrom('remember_tokens')
        .select('selector')
        .where('user_id', '=', user.id)
        .execute();
      expect(rows).toHaveLength(1);
      expect(me.cookie('citadel_remember')!.startsWith(rows[0]!.selector)).toBe(true);
    });
  }

  it('needs a session or a token with sessions:read', async () => {
    expect((await t.client().get('/sessions')).status).toBe(401);
    const user = await t.createUser();
    const client = await signInWith(t, user.email, FIREFOX_LINUX);
    await elevate(client);
    const narrow = (await client.post('/tokens', { name: 'narrow', abilities: ['posts:read'] })).body.token;
    const reader = (await client.post('/tokens', { name: 'reader', abilities: ['sessions:read'] })).body
      .token;
    expect((await t.client().get('/sessions', 'json', { token: narrow })).status).toBe(403);
    const listed = await t.client().get('/sessions', 'json', { token: reader });
    expect(listed.status).toBe(200);
    expect(listed.body.data.sessions).toHaveLength(1);
    expect(listed.body.data.sessions[0].current).toBe(false);
    // Reading does not grant ending them.
    const id = listed.body.data.sessions[0].id;
    expect((await t.client().delete(`/sessions/${id}`, 'json', { token: reader })).status).toBe(403);
  });

  it('the sessions page lists devices with a confirmed, destructive sign-out button', async () => {
    const user = await t.createUser();
    const me = await signInWith(t, user.email, FIREFOX_LINUX);
    await signInWith(t, user.email, SAFARI_IPHONE);
    const page = await me.get('/sessions', 'form');
    expect(page.status).toBe(200);
    expect(page.text).toContain('Firefox on Linux');
    expect(page.text).toContain('Safari on iOS');
    expect(page.text).toContain('This browser');
    expect(page.text).toMatch(/data-confirm="[^"]+"[^>]*>[\s\S]*?class="danger"/);
  });
});

const redisUp = await redisAvailable();

describe.skipIf(!redisUp)('sessions and devices with the Redis session store', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ redisUrl: REDIS_URL });
  });
  afterAll(async () => t?.close());

  /** Redis is shared by every test file: a random, large user id keeps this file's keys its own. */
  async function isolatedUser() {
    const id = 1_000_000 + randomInt(1_000_000_000);
    const now = t.clock.now().toISOString();
    await t.services.db
      .insertInto('users')
      .values({
        id,
        username: `redis${id}`,
        username_normalized: `redis${id}`,
        email: `redis${id}@example.com`,
        password_hash: await t.services.passwords.hash(TEST_PASSWORD),
        active: 1,
        created_at: now,
        updated_at: now,
      } as never)
      .execute();
    return (await t.services.users.findById(id))!;
  }

  it('lists, revokes one, revokes the others', async () => {
    const user = await isolatedUser();
    const me = await signInWith(t, user.email, FIREFOX_LINUX);
    const phone = await signInWith(t, user.email, SAFARI_IPHONE, true);
    const tablet = await signInWith(t, user.email, SAFARI_IPHONE);
    const sessions = (await me.get('/sessions')).body.data.sessions as { id: string; current: boolean }[];
    expect(sessions).toHaveLength(3);
    const rows = await t.services.db.selectFrom('sessions').select('id').execute();
    expect(rows).toHaveLength(0);
    const phoneId = (await phone.get('/sessions')).body.data.sessions.find(
      (s: { current: boolean }) => s.current,
    ).id;
    expect((await me.delete(`/sessions/${phoneId}`)).status).toBe(200);
    expect((await phone.get('/me')).status).toBe(401);
    expect((await me.post('/sessions/revoke-others')).body.data.revoked).toBe(1);
    expect((await tablet.get('/me')).status).toBe(401);
    expect((await me.get('/sessions')).body.data.sessions).toHaveLength(1);
  });
});
