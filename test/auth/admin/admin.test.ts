/**
 * Administration (contract section 18): the admin role, the users list, disabling, enabling,
 * signing out everywhere and impersonation, each a security event of the user concerned with the
 * admin's id; 403 for everyone else on every admin endpoint; sudo for every change.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, TEST_PASSWORD, type TestApp } from '../../support/app.ts';
import type { TestClient } from '../../support/client.ts';
import { REDIS_URL } from '../../support/services.ts';
import { elevate } from '../../support/sudo.ts';
import { grantAdminRole } from '../../../src/auth/core/roles.ts';
import type { UserRecord } from '../../../src/auth/core/users.ts';

const ADMIN_ENDPOINTS = (id: number): [string, string, Record<string, unknown>?][] => [
  ['GET', '/admin/users'],
  ['GET', `/admin/users/${id}`],
  ['POST', `/admin/users/${id}/disable`, { reason: 'spam' }],
  ['POST', `/admin/users/${id}/enable`],
  ['POST', `/admin/users/${id}/sign-out`],
  ['POST', `/admin/users/${id}/impersonate`],
  ['POST', '/admin/impersonation/stop'],
];

async function call(
  client: TestClient,
  [method, path, body]: [string, string, Record<string, unknown>?],
  token?: string,
) {
  const options = token ? { token } : undefined;
  return method === 'GET'
    ? client.get(path, 'json', options)
    : client.post(path, body ?? {}, 'json', options);
}

async function eventsOf(t: TestApp, userId: number, type: string) {
  const rows = await t.services.db
    .selectFrom('security_events')
    .select(['type', 'detail'])
    .where('user_id', '=', userId)
    .where('type', '=', type)
    .execute();
  return rows.map((row) => JSON.parse(row.detail) as Record<string, unknown>);
}

function suite(name: string, options: { redis?: boolean }) {
  describe(name, () => {
    let t: TestApp;
    let root: UserRecord;
    let admin: TestClient;

    beforeAll(async () => {
      t = await startTestApp(options.redis ? { redisUrl: REDIS_URL } : {});
      root = await t.createUser({ username: `root${Date.now()}` });
      await grantAdminRole(t.services.db, root.email);
      admin = await t.signIn(root);
    });
    afterAll(async () => t?.close());

    it('a non-admin gets 403 on every admin endpoint (session with sudo, token, service token)', async () => {
      const user = await t.createUser();
      const other = await t.createUser();
      const session = await t.signIn(user);
      await elevate(session);
      const { token } = await t.services.tokens.issue({
        userId: user.id,
        name: 'all',
        abilities: ['*'],
        expiresAt: null,
      });
      const jwt = (await session.post('/token', {})).body.access_token as string;
      for (const endpoint of ADMIN_ENDPOINTS(other.id)) {
        expect((await call(session, endpoint)).status, `session ${endpoint[1]}`).toBe(403);
        expect((await call(t.client(), endpoint, token)).status, `token ${endpoint[1]}`).toBe(403);
        expect((await call(t.client(), endpoint, jwt)).status, `JWT ${endpoint[1]}`).toBe(403);
      }
      expect((await t.services.users.findById(other.id))!.disabled_at).toBeNull();
    });

    it('GET /admin/users: search, pagination and the listed fields', async () => {
      const tag = `find${Date.now()}`;
      const found = [];
      for (let i = 0; i < 3; i++)
        found.push(await t.createUser({ username: `${tag}_${i}`, email: `${tag}${i}@example.com` }));
      await t.createUser({ username: `x${tag.slice(1)}`.replace('x', 'z') });
      await t.signIn(found[0]!);
      const first = await admin.get(`/admin/users?search=${tag.toUpperCase()}&limit=2`);
      expect(first.status, first.text).toBe(200);
      expect(first.body.action).toBe('admin.users');
      expect(first.body.data.pagination).toMatchObject({
        page: 1,
        limit: 2,
        total: 3,
        totalPages: 2,
        hasMore: true,
      });
      expect(first.body.data.users.map((u: { id: number }) => u.id)).toEqual([found[0]!.id, found[1]!.id]);
      expect(first.body.data.users[0]).toEqual({
        id: found[0]!.id,
        username: found[0]!.username,
        email: found[0]!.email,
        active: true,
        role: 'user',
        disabled_until: null,
        created_at: found[0]!.created_at,
        last_sign_in_at: expect.stringMatching(/^\d{4}-/),
      });
      expect(first.body.data.users[1].last_sign_in_at).toBeNull();
      const second = await admin.get(`/admin/users?search=${tag}&limit=2&page=2`);
      expect(second.body.data.users.map((u: { id: number }) => u.id)).toEqual([found[2]!.id]);
      // LIKE wildcards are text, not patterns.
      expect((await admin.get('/admin/users?search=%25')).body.data.pagination.total).toBe(0);
      expect((await admin.get('/admin/users?search=_')).body.data.users.length).toBeGreaterThan(0);
      expect((await admin.get('/admin/users?limit=0')).status).toBe(422);
      expect((await admin.get('/admin/users?limit=500')).body.data.pagination.limit).toBe(100);
    });

    it('a change needs sudo: 403 sudo.required, then it works', async () => {
      const user = await t.createUser();
      const fresh = await t.signIn(root);
      const refused = await fresh.post(`/admin/users/${user.id}/sign-out`, {});
      expect(refused.status).toBe(403);
      expect(refused.body.action).toBe('sudo.required');
      await elevate(fresh);
      expect((await fresh.post(`/admin/users/${user.id}/sign-out`, {})).status).toBe(200);
      expect(await eventsOf(t, user.id, 'signed_out_by_admin')).toEqual([{ admin_id: root.id }]);
    });

    it('disable: every session and token ends at once; sign-in is 403 login.disabled until enabled', async () => {
      await elevate(admin);
      const user = await t.createUser();
      const first = await t.signIn(user);
      const remembered = t.client();
      expect(
        (await remembered.post('/login', { email: user.email, password: TEST_PASSWORD, remember: true }))
          .status,
      ).toBe(200);
      const { token } = await t.services.tokens.issue({
        userId: user.id,
        name: 'cli',
        abilities: ['*'],
        expiresAt: null,
      });
      const jwt = (await first.post('/token', {})).body.access_token as string;
      for (const client of [first, remembered]) expect((await client.get('/me')).status).toBe(200);

      const response = await admin.post(`/admin/users/${user.id}/disable`, {
        reason: 'Account under attack',
      });
      expect(response.status, response.text).toBe(200);
      expect(response.body.action).toBe('admin.disable');

      for (const client of [first, remembered]) expect((await client.get('/me')).status).toBe(401);
      expect((await t.client().get('/me', 'json', { token })).status).toBe(401);
      expect((await t.client().get('/me', 'json', { token: jwt })).status).toBe(401);
      expect(await t.services.sessions.listForUser(user.id)).toEqual([]);
      const login = await t.client().post('/login', { email: user.email, password: TEST_PASSWORD });
      expect(login.status).toBe(403);
      expect(login.body.action).toBe('login.disabled');
      // A wrong password stays the same 401 as for anyone (nothing said about the account).
      expect(
        (await t.client().post('/login', { email: user.email, password: 'wrong password!!' })).status,
      ).toBe(401);

      const listed = await admin.get(`/admin/users?search=${encodeURIComponent(user.email)}`);
      expect(listed.body.data.users[0].disabled_until).toBe('9999-12-31T23:59:59.999Z');
      expect(await eventsOf(t, user.id, 'account_disabled')).toEqual([
        { admin_id: root.id, reason: 'Account under attack', until: null },
      ]);

      expect((await admin.post(`/admin/users/${user.id}/enable`, {})).status).toBe(200);
      expect(await eventsOf(t, user.id, 'account_enabled')).toEqual([{ admin_id: root.id }]);
      expect((await t.signIn(user)).cookies.size).toBeGreaterThan(0);
    });

    it('disable until a time: refused until it passes; the past is a 422; not on oneself', async () => {
      await elevate(admin);
      const user = await t.createUser();
      const past = await admin.post(`/admin/users/${user.id}/disable`, {
        reason: 'r',
        until: new Date(t.clock.now().getTime() - 1000).toISOString(),
      });
      expect(past.status).toBe(422);
      expect(past.body.errors.until).toBeDefined();
      expect((await admin.post(`/admin/users/${user.id}/disable`, {})).status).toBe(422);
      expect((await admin.post(`/admin/users/${root.id}/disable`, { reason: 'r' })).status).toBe(409);
      expect((await admin.post('/admin/users/999999999/disable', { reason: 'r' })).status).toBe(404);

      const until = new Date(t.clock.now().getTime() + 3600_000).toISOString();
      expect(
        (await admin.post(`/admin/users/${user.id}/disable`, { reason: 'cool down', until })).status,
      ).toBe(200);
      expect((await t.client().post('/login', { email: user.email, password: TEST_PASSWORD })).status).toBe(
        403,
      );
      t.clock.advance(3601);
      expect((await t.client().post('/login', { email: user.email, password: TEST_PASSWORD })).status).toBe(
        200,
      );
      admin = await t.signIn(root);
    });

    it('impersonation: acts as the user, marked on /me and every page; no sudo, no admin; stop returns', async () => {
      await elevate(admin);
      const user = await t.createUser();
      const started = await admin.post(`/admin/users/${user.id}/impersonate`, {});
      expect(started.status, started.text).toBe(200);
      expect(started.body.data.user_id).toBe(user.id);

      const me = await admin.get('/me');
      expect(me.body.user.id).toBe(user.id);
      expect(me.body.impersonator).toEqual({ id: root.id, username: root.username });
      // Sudo is refused (creating a token needs it), and so is every admin endpoint.
      const sudoVerify = await admin.post('/sudo/verify', { factor: 'password', proof: TEST_PASSWORD });
      expect(sudoVerify.status).not.toBe(200);
      expect((await admin.post('/tokens', { name: 'x' })).status).toBe(403);
      for (const endpoint of ADMIN_ENDPOINTS(user.id).filter(([, path]) => !path.endsWith('/stop')))
        expect((await call(admin, endpoint)).status, endpoint[1]).toBe(403);
      // A service token cannot carry the impersonation past its end.
      expect((await admin.post('/token', {})).status).toBe(403);
      // Every page shows the banner with "Stop".
      for (const path of ['/', '/account', '/tokens']) {
        const page = await admin.get(path, 'form');
        expect(page.text, path).toContain('action="/admin/impersonation/stop"');
        expect(page.text).toContain(`acting as <strong>${user.username}</strong>`);
      }

      const stopped = await admin.post('/admin/impersonation/stop', {});
      expect(stopped.status).toBe(200);
      const back = await admin.get('/me');
      expect(back.body.user.id).toBe(root.id);
      expect(back.body.impersonator).toBeUndefined();
      expect((await admin.get('/', 'form')).text).not.toContain('/admin/impersonation/stop');
      expect(await eventsOf(t, user.id, 'impersonation_started')).toEqual([
        { admin_id: root.id, until: expect.any(String) },
      ]);
      expect(await eventsOf(t, user.id, 'impersonation_ended')).toEqual([
        { admin_id: root.id, reason: 'stopped' },
      ]);
      // Not an administrator again through sudo carried over: it was dropped.
      expect((await admin.post(`/admin/users/${user.id}/sign-out`, {})).body.action).toBe('sudo.required');
    });

    it('impersonation ends after 30 minutes', async () => {
      await elevate(admin);
      const user = await t.createUser();
      expect((await admin.post(`/admin/users/${user.id}/impersonate`, {})).status).toBe(200);
      t.clock.advance(29 * 60);
      expect((await admin.get('/me')).body.user.id).toBe(user.id);
      t.clock.advance(61);
      const me = await admin.get('/me');
      expect(me.body.user.id).toBe(root.id);
      expect(me.body.impersonator).toBeUndefined();
      expect(await eventsOf(t, user.id, 'impersonation_ended')).toEqual([
        { admin_id: root.id, reason: 'expired' },
      ]);
      admin = await t.signIn(root);
    });
  });
}

suite('administration (database sessions)', {});
suite('administration (Redis sessions)', { redis: true });

describe('ADMIN_EMAILS', () => {
  it('makes the listed accounts that proved their address admins at start', async () => {
    const first = await startTestApp();
    try {
      const user = await first.createUser({ emailVerified: true });
      const other = await first.createUser({ emailVerified: true });
      const second = await startTestApp({
        env: { ADMIN_EMAILS: ` ${user.email.toUpperCase()}, nobody@example.com` },
        sharedDatabase: first.database,
        sharedMail: first.mail,
      });
      try {
        expect((await second.services.users.findById(user.id))!.role).toBe('admin');
        expect((await second.services.users.findById(other.id))!.role).toBe('user');
      } finally {
        await second.close();
      }
    } finally {
      await first.close();
    }
  });
});
