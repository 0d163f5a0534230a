import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { requireAbility } from '../../../src/auth/core/caller.ts';
import type { UserRecord } from '../../../src/auth/core/users.ts';
import { sha256Hex } from '../../../src/core/crypto.ts';

describe('bearer guard', () => {
  let t: TestApp;
  let user: UserRecord;
  beforeAll(async () => {
    t = await startTestApp({
      // A route guarded by an ability, the way resource routes use the guard.
      routes: (app) => {
        app.get('/test/posts', { config: { action: 'test.posts' } }, async (request) => {
          const caller = requireAbility(request, 'posts:read');
          return { via: caller.via, user: caller.user.id };
        });
        app.post('/test/posts', { config: { action: 'test.posts' } }, async (request) => {
          const caller = requireAbility(request, 'posts:create');
          return { via: caller.via };
        });
      },
    });
    user = await t.createUser();
  });
  afterAll(async () => t?.close());

  const issue = (abilities: string[] = ['*'], expiresAt: string | null = null, owner = user) =>
    t.services.tokens.issue({ userId: owner.id, name: 'test', abilities, expiresAt });

  function expectBearer401(res: { status: number; headers: Record<string, unknown>; body: unknown }) {
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer error="invalid_token"');
    expect(res.body).toMatchObject({ status: 'error', statusCode: 401 });
  }

  it('a valid token makes its owner the caller of /me', async () => {
    const { token, record } = await issue();
    expect(token).toMatch(/^citadel_pat_[0-9A-Za-z]{49}$/);
    const res = await t.client().get('/me', 'json', { token });
    expect(res.status).toBe(200);
    expect(res.body.user.id).toBe(user.id);
    const row = await t.services.db
      .selectFrom('personal_access_tokens')
      .select('token_hash')
      .where('id', '=', record.id)
      .executeTakeFirstOrThrow();
    expect(row.token_hash).toBe(sha256Hex(token));
  });

  it('an expired token is refused (401, WWW-Authenticate: Bearer)', async () => {
    const expiresAt = new Date(t.clock.now().getTime() + 3600_000).toISOString();
    const { token } = await issue(['*'], expiresAt);
    expect((await t.client().get('/me', 'json', { token })).status).toBe(200);
    t.clock.advance(3600);
    expectBearer401(await t.client().get('/me', 'json', { token }));
  });

  it('a revoked token is refused', async () => {
    const { token, record } = await issue();
    expect(await t.services.tokens.revoke(user.id, record.id)).toBe(true);
    expectBearer401(await t.client().get('/me', 'json', { token }));
  });

  it('only the owner can revoke a token', async () => {
    const other = await t.createUser();
    const { token, record } = await issue();
    expect(await t.services.tokens.revoke(other.id, record.id)).toBe(false);
    expect((await t.client().get('/me', 'json', { token })).status).toBe(200);
  });

  it('malformed, wrong-checksum and unknown tokens are refused', async () => {
    const { token } = await issue();
    const last = token.at(-1)!;
    const wrongChecksum = token.slice(0, -1) + (last === 'a' ? 'b' : 'a');
    const wellFormedUnknown = (await issue()).token;
    await t.services.db
      .deleteFrom('personal_access_tokens')
      .where('token_hash', '=', sha256Hex(wellFormedUnknown))
      .execute();
    for (const candidate of [
      'nonsense',
      token.slice(0, -2),
      token + 'x',
      wrongChecksum,
      'citadel_pat_',
      wellFormedUnknown,
    ]) {
      expectBearer401(await t.client().get('/me', 'json', { token: candidate }));
    }
    for (const header of ['Basic dXNlcjpwYXNz', 'Bearer', `Bearer ${token} extra`, token]) {
      expectBearer401(await t.client().get('/me', 'json', { headers: { authorization: header } }));
    }
  });

  it('a bad token is a 401 even with a valid session cookie (no fall-back)', async () => {
    const client = await t.signIn(user);
    expect((await client.get('/me')).status).toBe(200);
    expectBearer401(await client.get('/me', 'json', { token: 'citadel_pat_nope' }));
  });

  it('a token in the query string is ignored', async () => {
    const { token } = await issue();
    for (const key of ['token', 'access_token', 'api_token']) {
      const res = await t.client().get(`/me?${key}=${token}`);
      expect(res.status).toBe(401);
      // Not taken as a token: a plain challenge (RFC 9110 §15.5.2), not invalid_token.
      expect(res.headers['www-authenticate']).toBe('Bearer');
    }
  });

  it('the token of a disabled user is refused', async () => {
    const owner = await t.createUser();
    const { token } = await issue(['*'], null, owner);
    await t.services.users.setActive(owner.id, false);
    expectBearer401(await t.client().get('/me', 'json', { token }));
  });

  it('abilities: *, resource:* and resource:verb grant; others get 403', async () => {
    const cases: [string[], number, number][] = [
      [['*'], 200, 200],
      [['posts:*'], 200, 200],
      [['posts:read'], 200, 403],
      [['posts:create'], 403, 200],
      [['comments:*', 'tokens:read'], 403, 403],
      [[], 403, 403],
    ];
    for (const [abilities, read, create] of cases) {
      const { token } = await issue(abilities);
      const r = await t.client().get('/test/posts', 'json', { token });
      expect(r.status, `${abilities.join(',')} read`).toBe(read);
      const c = await t.client().post('/test/posts', {}, 'json', { token });
      expect(c.status, `${abilities.join(',')} create`).toBe(create);
      if (read === 403) expect(r.body.message).toContain('posts:read');
    }
  });

  it('a session caller holds every ability', async () => {
    const client = await t.signIn(user);
    expect((await client.get('/test/posts')).body).toEqual({ via: 'session', user: user.id });
  });

  it('writes last_used_at at most once a minute', async () => {
    const { token, record } = await issue();
    const lastUsed = async () =>
      (
        await t.services.db
          .selectFrom('personal_access_tokens')
          .select('last_used_at')
          .where('id', '=', record.id)
          .executeTakeFirstOrThrow()
      ).last_used_at;
    expect(await lastUsed()).toBeNull();
    await t.client().get('/me', 'json', { token });
    const first = await lastUsed();
    expect(first).toBe(t.clock.now().toISOString());
    t.clock.advance(30);
    await t.client().get('/me', 'json', { token });
    expect(await lastUsed()).toBe(first);
    t.clock.advance(29);
    await t.client().get('/me', 'json', { token });
    expect(await lastUsed()).toBe(first);
    t.clock.advance(2);
    await t.client().get('/me', 'json', { token });
    expect(await lastUsed()).toBe(t.clock.now().toISOString());
  });

  it('logout with a bearer token revokes that token only', async () => {
    const { token } = await issue();
    const { token: other } = await issue();
    const res = await t.client().post('/logout', {}, 'json', { token });
    expect(res.status).toBe(200);
    expect(res.body.action).toBe('logout');
    expectBearer401(await t.client().get('/me', 'json', { token }));
    expect((await t.client().get('/me', 'json', { token: other })).status).toBe(200);
  });

  it('bearer requests need no CSRF token and create no session', async () => {
    const { token } = await issue();
    const res = await t.client().post('/test/posts', { a: 1 }, 'form', { token, csrf: false });
    expect(res.status).toBe(200);
    expect(res.headers['set-cookie']).toBeUndefined();
  });
});
