import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.ts';
import type { TestClient } from '../../support/client.ts';
import { elevate, elevatedClient } from '../../support/sudo.ts';

async function createToken(client: TestClient, body: Record<string, unknown>, token?: string) {
  return client.post('/tokens', body, 'json', token ? { token } : undefined);
}

describe('personal access tokens', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t?.close());

  it('creates, lists, authenticates GET /me, revokes, then 401', async () => {
    const { client, userId } = await elevatedClient(t);
    const created = await client.post('/tokens/create', { name: 'CI deploy' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      action: 'tokens.create',
      status: 'success',
      statusCode: 201,
      name: 'CI deploy',
      token_id: expect.any(Number),
    });
    const plain: string = created.body.token;
    expect(plain).toMatch(/^citadel_pat_[0-9A-Za-z]{49}$/);

    const list = await client.get('/tokens');
    expect(list.status).toBe(200);
    expect(list.body.action).toBe('tokens.index');
    expect(list.body.tokens).toEqual([
      {
        id: created.body.token_id,
        name: 'CI deploy',
        abilities: ['*'],
        last_used_at: null,
        created_at: expect.any(String),
        expires_at: null,
        organization_id: null,
      },
    ]);
    expect(list.text).not.toContain(plain);

    const anonymous = t.client();
    const me = await anonymous.get('/me', 'json', { token: plain });
    expect(me.status).toBe(200);
    expect(me.body.user.id).toBe(userId);
    expect(anonymous.cookies.size).toBe(0);

    const afterUse = await client.get('/tokens');
    expect(afterUse.body.tokens[0].last_used_at).not.toBeNull();

    const revoked = await client.delete(`/tokens/${created.body.token_id}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ action: 'tokens.revoke', status: 'success' });
    const denied = await anonymous.get('/me', 'json', { token: plain });
    expect(denied.status).toBe(401);
    expect(denied.headers['www-authenticate']).toBe('Bearer error="invalid_token"');
    expect((await client.get('/tokens')).body.tokens).toEqual([]);
  });

  it('never stores the plain token: only its SHA-256', async () => {
    const { client } = await elevatedClient(t);
    const created = await createToken(client, { name: 'stored hashed' });
    const rows = await t.services.db.selectFrom('personal_access_tokens').selectAll().execute();
    const dump = JSON.stringify(rows);
    expect(dump).not.toContain(created.body.token);
    expect(dump).not.toContain(created.body.token.slice('citadel_pat_'.length, -6));
    const { sha256Hex } = await import('../../../src/core/crypto.ts');
    expect(rows.map((r) => r.token_hash)).toContain(sha256Hex(created.body.token));
  });

  it('validates name, abilities and expires_at (422)', async () => {
    const { client } = await elevatedClient(t);
    const cases: [Record<string, unknown>, string][] = [
      [{}, 'name'],
      [{ name: '   ' }, 'name'],
      [{ name: 'x'.repeat(101) }, 'name'],
      [{ name: 'ok', abilities: 'posts:read' }, ''],
      [{ name: 'ok', abilities: ['posts:write'] }, 'abilities'],
      [{ name: 'ok', abilities: [] }, 'abilities'],
      [{ name: 'ok', abilities: [42] }, 'abilities'],
      [{ name: 'ok', abilities: { a: 1 } }, 'abilities'],
      [{ name: 'ok', expires_at: 'tomorrow' }, 'expires_at'],
      [{ name: 'ok', expires_at: '2031-02-30T00:00:00Z' }, 'expires_at'],
      [{ name: 'ok', expires_at: new Date(t.clock.now().getTime() - 1000).toISOString() }, 'expires_at'],
      [{ name: 'ok', expires_at: t.clock.now().toISOString() }, 'expires_at'],
    ];
    for (const [body, field] of cases) {
      const response = await createToken(client, body);
      if (field === '') {
        expect(response.status, JSON.stringify(body)).toBe(201);
        continue;
      }
      expect(response.status, JSON.stringify(body)).toBe(422);
      expect(response.body.errors[field], JSON.stringify(body)).toEqual(expect.any(String));
    }
    const hundred = await createToken(client, {
      name: 'y'.repeat(100),
      abilities: ['posts:*', 'tokens:read'],
    });
    expect(hundred.status).toBe(201);
  });

  it('stops accepting a token once it expires', async () => {
    const { client } = await elevatedClient(t);
    const expiresAt = new Date(t.clock.now().getTime() + 3600_000).toISOString();
    const created = await createToken(client, { name: 'short', expires_at: expiresAt });
    expect(created.status).toBe(201);
    const listed = (await client.get('/tokens')).body.tokens;
    expect(listed.find((x: { id: number }) => x.id === created.body.token_id).expires_at).toBe(expiresAt);
    expect((await t.client().get('/me', 'json', { token: created.body.token })).status).toBe(200);
    t.clock.advance(3599);
    expect((await t.client().get('/me', 'json', { token: created.body.token })).status).toBe(200);
    t.clock.advance(1);
    const expired = await t.client().get('/me', 'json', { token: created.body.token });
    expect(expired.status).toBe(401);
    expect(expired.headers['www-authenticate']).toBe('Bearer error="invalid_token"');
  });

  it('lets a token mint only tokens within its own abilities', async () => {
    const { client } = await elevatedClient(t);
    const narrow = (await createToken(client, { name: 'narrow', abilities: ['posts:read', 'tokens:create'] }))
      .body.token;
    const star = await createToken(t.client(), { name: 'escalate' }, narrow);
    expect(star.status).toBe(403);
    const explicitStar = await createToken(t.client(), { name: 'escalate', abilities: ['*'] }, narrow);
    expect(explicitStar.status).toBe(403);
    const wildcard = await createToken(t.client(), { name: 'escalate', abilities: ['posts:*'] }, narrow);
    expect(wildcard.status).toBe(403);
    const other = await createToken(t.client(), { name: 'escalate', abilities: ['comments:read'] }, narrow);
    expect(other.status).toBe(403);
    const same = await createToken(t.client(), { name: 'child', abilities: ['posts:read'] }, narrow);
    expect(same.status).toBe(201);
    expect(same.body.token).toMatch(/^citadel_pat_/);

    // Without tokens:create a token cannot mint at all, not even within its abilities.
    const readOnly = (await createToken(client, { name: 'ro', abilities: ['posts:read'] })).body.token;
    expect((await createToken(t.client(), { name: 'x', abilities: ['posts:read'] }, readOnly)).status).toBe(
      403,
    );
  });

  it('keeps a minted token within the expiry of the token that minted it', async () => {
    const { client } = await elevatedClient(t);
    const parentExpiry = new Date(t.clock.now().getTime() + 600_000).toISOString();
    const parent = (await createToken(client, { name: 'parent', abilities: ['*'], expires_at: parentExpiry }))
      .body.token;
    const later = new Date(t.clock.now().getTime() + 1200_000).toISOString();
    const tooLong = await createToken(t.client(), { name: 'child', expires_at: later }, parent);
    expect(tooLong.status).toBe(422);
    expect(tooLong.body.errors.expires_at).toEqual(expect.any(String));
    const inherited = await createToken(t.client(), { name: 'child' }, parent);
    expect(inherited.status).toBe(201);
    const list = await t.client().get('/tokens', 'json', { token: parent });
    const child = list.body.tokens.find((x: { id: number }) => x.id === inherited.body.token_id);
    expect(child.expires_at).toBe(parentExpiry);
  });

  it('needs tokens:read to list and tokens:delete to revoke', async () => {
    const { client } = await elevatedClient(t);
    const reader = (await createToken(client, { name: 'reader', abilities: ['tokens:read'] })).body.token;
    const poster = (await createToken(client, { name: 'poster', abilities: ['posts:*'] })).body;
    const deleter = (await createToken(client, { name: 'deleter', abilities: ['tokens:delete'] })).body.token;

    const listed = await t.client().get('/tokens', 'json', { token: reader });
    expect(listed.status).toBe(200);
    expect(listed.body.tokens.map((x: { name: string }) => x.name)).toEqual(['reader', 'poster', 'deleter']);
    expect(listed.text).not.toContain(reader);

    expect((await t.client().get('/tokens', 'json', { token: poster.token })).status).toBe(403);
    expect((await t.client().get('/tokens', 'json', { token: deleter })).status).toBe(403);
    expect((await t.client().delete(`/tokens/${poster.token_id}`, 'json', { token: reader })).status).toBe(
      403,
    );

    const revoked = await t
      .client()
      .post(`/tokens/revoke/${poster.token_id}`, {}, 'json', { token: deleter });
    expect(revoked.status).toBe(200);
    expect(revoked.body.action).toBe('tokens.revoke');
    expect((await t.client().get('/me', 'json', { token: poster.token })).status).toBe(401);
  });

  it("answers 404 for unknown, malformed or someone else's token ids", async () => {
    const alice = await elevatedClient(t);
    const bob = await elevatedClient(t);
    const bobs = (await createToken(bob.client, { name: 'bob' })).body;
    for (const path of [
      `/tokens/${bobs.token_id}`,
      '/tokens/999999',
      '/tokens/abc',
      '/tokens/1.5',
      '/tokens/-1',
      '/tokens/99999999999',
    ]) {
      const response = await alice.client.delete(path);
      expect(response.status, path).toBe(404);
    }
    expect((await alice.client.post(`/tokens/revoke/${bobs.token_id}`)).status).toBe(404);
    expect((await t.client().get('/me', 'json', { token: bobs.token })).status).toBe(200);
  });

  it('requires a caller (401) and sudo for session callers (403 sudo.required)', async () => {
    const anonymous = t.client();
    expect((await anonymous.get('/tokens')).status).toBe(401);
    expect((await anonymous.post('/tokens', { name: 'x' })).status).toBe(401);
    expect((await anonymous.delete('/tokens/1')).status).toBe(401);

    const user = await t.createUser();
    const client = await t.signIn(user);
    expect((await client.get('/tokens')).status).toBe(200);
    const denied = await client.post('/tokens', { name: 'needs sudo' });
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ action: 'sudo.required', redirect_to: '/sudo' });
    expect(denied.body.data.factors).toContain('password');
    expect((await client.get('/tokens')).body.tokens).toEqual([]);

    await elevate(client);
    expect((await client.post('/tokens', { name: 'now allowed' })).status).toBe(201);
  });

  it('a bearer token revokes itself on POST /logout', async () => {
    const { client } = await elevatedClient(t);
    const token = (await createToken(client, { name: 'logout' })).body.token;
    const out = await t.client().post('/logout', {}, 'json', { token });
    expect(out.status).toBe(200);
    expect((await t.client().get('/me', 'json', { token })).status).toBe(401);
  });

  it('does not accept a token from the query string', async () => {
    const { client } = await elevatedClient(t);
    const token = (await createToken(client, { name: 'query' })).body.token;
    for (const key of ['access_token', 'token', 'api_token']) {
      expect((await t.client().get(`/me?${key}=${token}`)).status).toBe(401);
    }
  });

  it('HTML page: sign-in required, CSRF enforced, names escaped, token shown only on creation', async () => {
    const anonymous = await t.client().get('/tokens', 'form');
    expect(anonymous.status).toBe(303);
    expect(anonymous.location).toBe('/login');

    const { client } = await elevatedClient(t);
    const forged = await client.post('/tokens/create', { name: 'forged' }, 'form', { csrf: false });
    expect(forged.status).toBe(403);
    expect((await client.get('/tokens')).body.tokens).toEqual([]);

    const created = await client.post('/tokens/create', { name: '<script>alert(1)</script>' }, 'form');
    expect(created.status).toBe(201);
    const plain = /id="new-token-value">([^<]+)</.exec(created.text)?.[1];
    expect(plain).toMatch(/^citadel_pat_/);
    expect(created.text).not.toContain('<script>alert(1)</script>');
    expect(created.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');

    const page = await client.get('/tokens', 'form');
    expect(page.status).toBe(200);
    expect(page.text).not.toContain(plain!);
    expect(page.text).toContain('&lt;script&gt;');

    const id = (await client.get('/tokens')).body.tokens[0].id;
    const revoked = await client.post(`/tokens/revoke/${id}`, {}, 'form');
    expect(revoked.status).toBe(303);
    expect(revoked.location).toBe('/tokens');
    expect((await client.get('/tokens')).body.tokens).toEqual([]);
  });
});
