/**
 * A busy service token is answered from memory (its verification and its user are remembered), yet
 * a disabled, deleted or deactivated user's tokens stop (contract section 18, issue 24): at once in
 * the process that made the change, at once in every process through Redis, and within a second in
 * another process without Redis (each process rereads a user once its copy is a second old).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.ts';
import type { TestClient } from '../../support/client.ts';
import { REDIS_URL } from '../../support/services.ts';
import { elevate } from '../../support/sudo.ts';
import { ManualClock } from '../../../src/core/clock.ts';
import { grantAdminRole } from '../../../src/auth/core/roles.ts';
import type { UserRecord } from '../../../src/auth/core/users.ts';
import { serviceTokenState } from '../../../src/auth/service-tokens/state.ts';
import { ServiceTokenVerifier, mintServiceToken } from '../../../src/auth/service-tokens/jwt.ts';
import { RecentUsers, USER_FRESH_MS } from '../../../src/auth/service-tokens/recent-users.ts';

const me = (t: TestApp, token: string) => t.client().get('/me', 'json', { token });

/** A fresh user's JWT, already used once on each app (so that each has it in memory). */
async function hotToken(a: TestApp, others: TestApp[] = []) {
  const user = await a.createUser();
  const token = (await (await a.signIn(user)).post('/token', {})).body.access_token as string;
  expect(token).toBeTypeOf('string');
  for (const t of [a, ...others]) expect((await me(t, token)).status).toBe(200);
  return { user, token };
}

async function adminOf(t: TestApp): Promise<TestClient> {
  const root = await t.createUser({ username: `root${process.pid}${Date.now()}` });
  await grantAdminRole(t.services.db, root.email);
  const admin = await t.signIn(root);
  await elevate(admin);
  return admin;
}

async function disable(admin: TestClient, user: UserRecord) {
  const response = await admin.post(`/admin/users/${user.id}/disable`, { reason: 'under attack' });
  expect(response.status, response.text).toBe(200);
}

/** The status of `/me` on `t`, asked until it is 401 or `ms` of real time have passed. */
async function statusWithin(t: TestApp, token: string, ms: number): Promise<number> {
  const until = Date.now() + ms;
  let status = (await me(t, token)).status;
  while (status !== 401 && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    status = (await me(t, token)).status;
  }
  return status;
}

describe('one process', () => {
  let t: TestApp;
  let admin: TestClient;
  const statements: string[] = [];
  beforeAll(async () => {
    t = await startTestApp({ database: { onQuery: (sql) => statements.push(sql) } });
    admin = await adminOf(t);
  });
  afterAll(async () => t?.close());

  it('a busy token reads nothing; its user is read again once its copy is a second old', async () => {
    const { user, token } = await hotToken(t);
    statements.length = 0;
    for (let i = 0; i < 3; i++) expect((await me(t, token)).status).toBe(200);
    expect(statements).toEqual([]);
    t.clock.advance(USER_FRESH_MS / 1000);
    expect((await me(t, token)).status).toBe(200);
    expect(statements.length, statements.join('\n')).toBe(1);
    expect(statements[0]).toMatch(/from ["`]?users["`]?/i);
    const verifier = serviceTokenState(t.services).verifier;
    expect(verifier.users.peek(user.id, t.clock.now().getTime())).toMatchObject({ id: user.id });
  });

  it('disabled by an admin: refused at once', async () => {
    const { user, token } = await hotToken(t);
    await disable(admin, user);
    expect((await me(t, token)).status).toBe(401);
    // Enabled again: the user may act, and the token (not expired) is the user's again.
    expect((await admin.post(`/admin/users/${user.id}/enable`, {})).status).toBe(200);
    expect((await me(t, token)).status).toBe(200);
  });

  it('the account deleted, or made inactive: refused at once', async () => {
    const deleted = await hotToken(t);
    const account = await t.signIn(deleted.user);
    await elevate(account);
    const gone = await account.post('/account/delete', {});
    expect(gone.status, gone.text).toBe(200);
    expect((await me(t, deleted.token)).status).toBe(401);

    const inactive = await hotToken(t);
    await t.services.users.setActive(inactive.user.id, false);
    expect((await me(t, inactive.token)).status).toBe(401);
  });

  it('a change made outside Citadel (SQL): refused within a second', async () => {
    const { user, token } = await hotToken(t);
    await t.services.db
      .updateTable('users')
      .set({ disabled_at: t.clock.now().toISOString() })
      .where('id', '=', user.id)
      .execute();
    t.clock.advance(USER_FRESH_MS / 1000);
    expect((await me(t, token)).status).toBe(401);
  });

  it('a remembered token is refused once it expires (the test clock)', async () => {
    const { token } = await hotToken(t);
    t.clock.advance(899);
    expect((await me(t, token)).status).toBe(200);
    t.clock.advance(1);
    expect((await me(t, token)).status).toBe(401);
    admin = await adminOf(t);
  });

  it('both memories are bounded: the oldest entries go first', async () => {
    const { ring, settings } = serviceTokenState(t.services);
    const verifier = new ServiceTokenVerifier(t.services.db, ring, settings, 3);
    const user = await t.createUser();
    const tokens: string[] = [];
    for (let i = 0; i < 5; i++) {
      const minted = await mintServiceToken(ring, settings, { userId: user.id, sid: `s${i}` }, t.clock.now());
      tokens.push(minted.token);
      expect(await verifier.claims(minted.token, t.clock.now())).not.toBeNull();
    }
    expect(verifier.verifiedCount).toBe(3);
    // An evicted token is verified again (and still valid), not refused.
    expect(await verifier.claims(tokens[0]!, t.clock.now())).toMatchObject({ sid: 's0' });

    const reads: number[] = [];
    const users = new RecentUsers(async (id) => {
      reads.push(id);
      return { id } as UserRecord;
    }, 2);
    for (const id of [1, 2, 3]) await users.load(id, 0);
    expect(users.size).toBe(2);
    expect(users.peek(1, 0)).toBeUndefined();
    expect(users.peek(3, 0)).toMatchObject({ id: 3 });
  });

  it('a read that raced a change does not store the old row', async () => {
    let release!: () => void;
    const users = new RecentUsers(async (id) => {
      await new Promise<void>((resolve) => (release = resolve));
      return { id } as UserRecord;
    });
    const loading = users.load(7, 0);
    users.forget(7);
    release();
    await loading;
    expect(users.peek(7, 0)).toBeUndefined();
  });
});

function twoProcesses(name: string, redis: boolean) {
  describe(name, () => {
    let a: TestApp;
    let b: TestApp;
    let admin: TestClient;
    beforeAll(async () => {
      const clock = new ManualClock();
      const redisUrl = redis ? { redisUrl: REDIS_URL } : {};
      a = await startTestApp({ clock, ...redisUrl });
      b = await startTestApp({ clock, sharedDatabase: a.database, sharedMail: a.mail, ...redisUrl });
      admin = await adminOf(a);
    });
    afterAll(async () => {
      await b?.close();
      await a?.close();
    });

    if (redis)
      it('disabled on one server: refused at once on the other (Redis pub/sub)', async () => {
        const { user, token } = await hotToken(a, [b]);
        await disable(admin, user);
        // The test clock stands still: only the published change can stop the token on b.
        expect(await statusWithin(b, token, 1000)).toBe(401);
        expect((await me(a, token)).status).toBe(401);
      });
    else
      it('disabled on one server: refused on the other within a second', async () => {
        const { user, token } = await hotToken(a, [b]);
        await disable(admin, user);
        expect((await me(a, token)).status).toBe(401);
        a.clock.advance(USER_FRESH_MS / 1000);
        expect((await me(b, token)).status).toBe(401);
      });

    it('parallel requests on both servers while the user is disabled: none passes afterwards', async () => {
      const { user, token } = await hotToken(a, [b]);
      const burst = () =>
        Promise.all(Array.from({ length: 20 }, (_, i) => me(i % 2 ? a : b, token).then((r) => r.status)));
      const during = await Promise.all([burst(), disable(admin, user)]);
      expect(during[0].every((status) => status === 200 || status === 401)).toBe(true);
      if (!redis) a.clock.advance(USER_FRESH_MS / 1000);
      else expect(await statusWithin(b, token, 1000)).toBe(401);
      expect(await burst()).toEqual(Array.from({ length: 20 }, () => 401));
    });
  });
}

twoProcesses('two servers on one database', false);
twoProcesses('two servers on one database and one Redis', true);
