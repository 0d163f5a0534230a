import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestApp, TEST_PASSWORD, type TestApp } from '../../support/app.ts';
import type { TestClient, TestResponse } from '../../support/client.ts';
import type { UserRecord } from '../../../src/auth/core/users.ts';

const DAY = 24 * 3600;

function setCookie(res: TestResponse, name: string): string | undefined {
  const raw = res.headers['set-cookie'];
  const list = Array.isArray(raw) ? raw : raw ? [String(raw)] : [];
  return list.find((c) => c.startsWith(`${name}=`));
}

describe('remember-me', () => {
  let t: TestApp;
  let user: UserRecord;
  beforeAll(async () => {
    t = await startTestApp();
    user = await t.createUser();
  });
  afterAll(async () => t?.close());
  beforeEach(() => t.clock.advance(3600));

  async function rememberedClient(remember: unknown = 1): Promise<{ client: TestClient; res: TestResponse }> {
    const client = t.client();
    const res = await client.post('/login', { email: user.email, password: TEST_PASSWORD, remember });
    expect(res.status).toBe(200);
    return { client, res };
  }

  const rows = () =>
    t.services.db.selectFrom('remember_tokens').selectAll().where('user_id', '=', user.id).execute();

  /** A browser that holds only this remember cookie (its session cookie is gone). */
  function browserWith(value: string): TestClient {
    const client = t.client();
    client.cookies.set('citadel_remember', value);
    return client;
  }

  it('remember=1 sets an HttpOnly, SameSite=Lax cookie for 30 days; the validator is stored hashed', async () => {
    const { client, res } = await rememberedClient(1);
    const header = setCookie(res, 'citadel_remember');
    expect(header).toBeDefined();
    expect(header).toContain('Max-Age=2592000');
    expect(header).toContain('HttpOnly');
    expect(header).toContain('SameSite=Lax');
    expect(header).not.toContain('Secure');
    const value = client.cookie('citadel_remember')!;
    const [selector, validator] = value.split(':');
    const stored = await t.services.db
      .selectFrom('remember_tokens')
      .selectAll()
      .where('selector', '=', selector!)
      .executeTakeFirstOrThrow();
    expect(stored.validator_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(stored.validator_hash).not.toContain(validator!);
  });

  it('remember=true works too; without remember no cookie is set', async () => {
    expect(setCookie((await rememberedClient(true)).res, 'citadel_remember')).toContain('Max-Age=2592000');
    const plain = await t.client().post('/login', { email: user.email, password: TEST_PASSWORD });
    expect(setCookie(plain, 'citadel_remember')).toBeUndefined();
  });

  it('restores the session once the session cookie is gone, and rotates the cookie; the old value stops working', async () => {
    const { client } = await rememberedClient();
    const first = client.cookie('citadel_remember')!;
    client.cookies.delete('citadel_session');
    const me = await client.get('/me');
    expect(me.status).toBe(200);
    expect(me.body.user.id).toBe(user.id);
    const rotated = client.cookie('citadel_remember')!;
    expect(rotated).not.toBe(first);
    expect(rotated.split(':')[0]).toBe(first.split(':')[0]);
    expect(client.cookie('citadel_session')).toBeDefined();
    // The restored session carries on without the remember cookie.
    expect((await client.get('/me')).status).toBe(200);

    t.clock.advance(11);
    const thief = browserWith(first);
    expect((await thief.get('/me')).status).toBe(401);
    expect(thief.cookie('citadel_remember')).toBeUndefined();
    // Replaying a stale validator is taken as theft: the token is gone for the real device too.
    client.cookies.delete('citadel_session');
    expect((await client.get('/me')).status).toBe(401);
  });

  it('requests sent together with the same cookie: the first rotates it, the others do not destroy it', async () => {
    const { client } = await rememberedClient();
    const first = client.cookie('citadel_remember')!;
    client.cookies.delete('citadel_session');
    expect((await client.get('/me')).status).toBe(200);
    const rotated = client.cookie('citadel_remember')!;
    // A second tab's request, sent before the rotation reached it, carries the old value.
    t.clock.advance(2);
    const tab = browserWith(first);
    const res = await tab.get('/me');
    expect(res.status).toBe(401);
    expect(String(res.headers['set-cookie'] ?? '')).not.toContain('citadel_remember');
    // The browser's new cookie still works.
    expect((await browserWith(rotated).get('/me')).status).toBe(200);
  });

  it('the rotated value works again after the next session loss', async () => {
    const { client } = await rememberedClient();
    for (let i = 0; i < 3; i++) {
      client.cookies.delete('citadel_session');
      t.clock.advance(DAY);
      expect((await client.get('/me')).status).toBe(200);
    }
  });

  it('stops working after 30 days, even when used in between (expiry fixed at sign-in)', async () => {
    const { client } = await rememberedClient();
    t.clock.advance(29 * DAY);
    client.cookies.delete('citadel_session');
    expect((await client.get('/me')).status).toBe(200);
    const value = client.cookie('citadel_remember')!;
    t.clock.advance(DAY + 1);
    const late = browserWith(value);
    expect((await late.get('/me')).status).toBe(401);
  });

  it('an unused cookie is refused after 30 days', async () => {
    const { client } = await rememberedClient();
    const value = client.cookie('citadel_remember')!;
    t.clock.advance(30 * DAY + 1);
    expect((await browserWith(value).get('/me')).status).toBe(401);
  });

  it('logout revokes the device token (row deleted, cookie cleared)', async () => {
    const { client } = await rememberedClient();
    const value = client.cookie('citadel_remember')!;
    const before = (await rows()).length;
    expect((await client.post('/logout')).status).toBe(200);
    expect(client.cookie('citadel_remember')).toBeUndefined();
    expect((await rows()).length).toBe(before - 1);
    expect((await browserWith(value).get('/me')).status).toBe(401);
  });

  it('one row per device: each device has its own, and signing in again on a device replaces its row', async () => {
    await t.services.remember.revokeAllForUser(user.id);
    const a = await rememberedClient();
    const b = await rememberedClient();
    expect((await rows()).length).toBe(2);
    // Rotation keeps one row per device.
    a.client.cookies.delete('citadel_session');
    expect((await a.client.get('/me')).status).toBe(200);
    expect((await rows()).length).toBe(2);
    // Signing in again on device b (still holding its cookie) replaces b's row.
    const old = b.client.cookie('citadel_remember')!;
    await b.client.post('/login', { email: user.email, password: TEST_PASSWORD, remember: 1 });
    expect((await rows()).length).toBe(2);
    expect(b.client.cookie('citadel_remember')).not.toBe(old);
    // Signing in without remember on a device drops its remembered token.
    await b.client.post('/login', { email: user.email, password: TEST_PASSWORD });
    expect((await rows()).length).toBe(1);
    expect(b.client.cookie('citadel_remember')).toBeUndefined();
  });

  it('a garbage or unknown cookie is ignored and cleared', async () => {
    for (const value of ['nonsense', 'a:b:c', 'unknownselector:unknownvalidator']) {
      const client = browserWith(value);
      expect((await client.get('/me')).status).toBe(401);
      expect(client.cookie('citadel_remember')).toBeUndefined();
    }
  });

  it('does not restore a disabled account', async () => {
    const other = await t.createUser();
    const client = t.client();
    await client.post('/login', { email: other.email, password: TEST_PASSWORD, remember: 1 });
    await t.services.users.setActive(other.id, false);
    client.cookies.delete('citadel_session');
    expect((await client.get('/me')).status).toBe(401);
  });
});
