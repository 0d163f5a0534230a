/**
 * Service tokens (contract section 18): POST /token mints an EdDSA JWT, GET /.well-known/jwks.json
 * publishes the keys, the JWT is a bearer of GET /me and the resource API without a read of the
 * session. The JWTs are checked here by an independent verifier (node:crypto on the JWS, not the
 * JOSE library the server uses).
 */
import { createPublicKey, generateKeyPairSync, createHmac, sign, verify, type KeyObject } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBlogApp, type BlogApp } from '../../support/api-app.ts';
import type { TestClient } from '../../support/client.ts';
import type { UserRecord } from '../../../src/auth/core/users.ts';
import { KeyRing, addSigningKey } from '../../../src/auth/service-tokens/keys.ts';
import { mintServiceToken } from '../../../src/auth/service-tokens/jwt.ts';

const APP_URL = 'http://localhost:3000';

interface Jwk {
  kty: string;
  crv: string;
  x: string;
  kid: string;
  alg: string;
  use: string;
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const decode = (part: string) =>
  JSON.parse(Buffer.from(part, 'base64url').toString()) as Record<string, unknown>;

/** The independent verifier: Ed25519 over `header.payload` with the published key of `kid`. */
function independentlyVerified(token: string, keys: Jwk[]): boolean {
  const [header, payload, signature] = token.split('.');
  const { alg, kid } = decode(header!);
  if (alg !== 'EdDSA') return false;
  const jwk = keys.find((key) => key.kid === kid);
  if (!jwk) return false;
  const publicKey: KeyObject = createPublicKey({
    key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x },
    format: 'jwk',
  });
  return verify(null, Buffer.from(`${header}.${payload}`), publicKey, Buffer.from(signature!, 'base64url'));
}

describe('service tokens', () => {
  let t: BlogApp;
  let alice: UserRecord;
  let bob: UserRecord;
  let aliceSession: TestClient;

  beforeAll(async () => {
    t = await startBlogApp({ countQueries: true });
    alice = await t.createUser();
    bob = await t.createUser();
    aliceSession = await t.signIn(alice);
  });
  afterAll(async () => t?.close());

  const jwks = async (): Promise<Jwk[]> => {
    const response = await t.client().get('/.well-known/jwks.json');
    expect(response.status).toBe(200);
    return response.body.keys as Jwk[];
  };
  const mint = async (client: TestClient, body: Record<string, unknown> = {}, token?: string) =>
    client.post('/token', body, 'json', token ? { token } : undefined);
  const pat = async (user: UserRecord, abilities: string[], expiresAt: string | null = null) =>
    (await t.services.tokens.issue({ userId: user.id, name: 'pat', abilities, expiresAt })).token;
  const me = (token: string) => t.client().get('/me', 'json', { token });

  it('POST /token with a session → a 15-minute EdDSA JWT that an independent verifier accepts', async () => {
    const response = await mint(aliceSession);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ action: 'token.create', token_type: 'Bearer', expires_in: 900 });
    const token = response.body.access_token as string;
    const [header, payload] = token.split('.').map((part, i) => (i < 2 ? decode(part) : part)) as [
      Record<string, unknown>,
      Record<string, unknown>,
    ];
    expect(header).toMatchObject({ alg: 'EdDSA', typ: 'JWT' });
    expect(header.kid).toMatch(/^[0-9a-f]{32}$/);
    const now = Math.floor(t.clock.now().getTime() / 1000);
    expect(payload).toEqual({
      iss: APP_URL,
      sub: String(alice.id),
      aud: APP_URL,
      iat: now,
      exp: now + 900,
      sid: expect.stringMatching(/^[0-9a-f]{32}$/),
    });
    // The session's handle is neither the cookie's value nor the stored hash.
    const cookie = aliceSession.cookies.get('citadel_session')!;
    expect(payload.sid).not.toBe(cookie);
    expect(JSON.stringify(payload)).not.toContain(cookie);

    const keys = await jwks();
    expect(keys.find((key) => key.kid === header.kid)).toMatchObject({
      kty: 'OKP',
      crv: 'Ed25519',
      alg: 'EdDSA',
      use: 'sig',
    });
    expect(Object.keys(keys[0]!).sort()).toEqual(['alg', 'crv', 'kid', 'kty', 'use', 'x']);
    expect(independentlyVerified(token, keys)).toBe(true);
    // And the independent verifier is not a rubber stamp: one changed claim and it says no.
    const [h, , s] = token.split('.');
    expect(independentlyVerified(`${h}.${b64({ ...payload, sub: String(bob.id) })}.${s}`, keys)).toBe(false);
  });

  it('GET /me accepts the JWT as a bearer and reads no session (one statement: the user)', async () => {
    const token = (await mint(aliceSession)).body.access_token as string;
    t.queries.length = 0;
    const response = await me(token);
    expect(response.status).toBe(200);
    expect(response.body.user).toMatchObject({ id: alice.id, username: alice.username });
    const statements = [...t.queries];
    expect(
      statements.filter((sql) => /sessions/i.test(sql)),
      statements.join('\n'),
    ).toEqual([]);
    expect(statements.length, statements.join('\n')).toBe(1);
    expect(statements[0]).toMatch(/from ["`]?users["`]?/i);
  });

  it('the resource API accepts the JWT: it reads and writes as its user', async () => {
    const token = (await mint(aliceSession)).body.access_token as string;
    const created = await t
      .client()
      .post('/api/v1/posts', { title: 'By JWT', body: 'Hello', status: 'published' }, 'json', { token });
    expect(created.status, created.text).toBe(201);
    const read = await t
      .client()
      .get(`/api/v1/posts/${created.body.data.id}?derive=author`, 'json', { token });
    expect(read.status).toBe(200);
    expect(read.body.data.author.username).toBe(alice.username);
  });

  describe('refused (401 invalid_token)', () => {
    let valid: string;
    let header: Record<string, unknown>;
    let payload: Record<string, unknown>;
    beforeAll(async () => {
      valid = (await mint(aliceSession)).body.access_token as string;
      header = decode(valid.split('.')[0]!);
      payload = decode(valid.split('.')[1]!);
    });

    const refused = async (token: string) => {
      const response = await me(token);
      expect(response.status, token).toBe(401);
      expect(response.headers['www-authenticate']).toBe('Bearer error="invalid_token"');
      // Never a fall-back to the session cookie the client also holds.
      const withCookie = await aliceSession.get('/me', 'json', { token });
      expect(withCookie.status).toBe(401);
    };

    it('alg: none', async () => {
      await refused(`${b64({ alg: 'none', typ: 'JWT', kid: header.kid })}.${b64(payload)}.`);
      await refused(`${b64({ alg: 'none', typ: 'JWT', kid: header.kid })}.${b64(payload)}.AAAA`);
    });

    it('another algorithm (HS256 keyed with the public key: algorithm confusion)', async () => {
      const jwk = (await jwks()).find((key) => key.kid === header.kid)!;
      const head = b64({ alg: 'HS256', typ: 'JWT', kid: header.kid });
      const body = b64(payload);
      for (const secret of [jwk.x, Buffer.from(jwk.x, 'base64url')]) {
        const mac = createHmac('sha256', secret).update(`${head}.${body}`).digest('base64url');
        await refused(`${head}.${body}.${mac}`);
      }
    });

    it('an unknown kid, and a key that is not published', async () => {
      const { privateKey } = generateKeyPairSync('ed25519');
      const forge = (kid: unknown) => {
        const head = b64({ alg: 'EdDSA', typ: 'JWT', kid });
        const body = b64(payload);
        const signature = sign(null, Buffer.from(`${head}.${body}`), privateKey).toString('base64url');
        return `${head}.${body}.${signature}`;
      };
      await refused(forge('0123456789abcdef0123456789abcdef'));
      // The published kid with a signature of another key.
      await refused(forge(header.kid));
      await refused(forge(undefined));
    });

    it('tampered: payload, header or signature changed', async () => {
      const [h, p, s] = valid.split('.') as [string, string, string];
      await refused(`${h}.${b64({ ...payload, sub: String(bob.id) })}.${s}`);
      await refused(`${h}.${b64({ ...payload, exp: (payload.exp as number) + 3600 })}.${s}`);
      await refused(`${h}.${b64({ ...payload, abilities: ['*'] })}.${s}`);
      await refused(`${b64({ ...header, typ: 'at+jwt' })}.${p}.${s}`);
      const flipped = Buffer.from(s, 'base64url');
      flipped[0] = flipped[0]! ^ 1;
      await refused(`${h}.${p}.${flipped.toString('base64url')}`);
      await refused(`${h}.${p}`);
    });

    it('another issuer or audience (signed with the server’s own key)', async () => {
      const ring = new KeyRing(t.services.db, t.clock, t.services.secrets, 900);
      const settings = { issuer: APP_URL, audience: APP_URL, ttlSeconds: 900 };
      const forged = async (changes: Partial<typeof settings>) =>
        (
          await mintServiceToken(
            ring,
            { ...settings, ...changes },
            { userId: alice.id, sid: 'x' },
            t.clock.now(),
          )
        ).token;
      // The same minting with the right settings is accepted: the refusals below are the claims'.
      expect((await me(await forged({}))).status).toBe(200);
      await refused(await forged({ audience: 'https://other.example' }));
      await refused(await forged({ issuer: 'https://other.example' }));
    });

    it('expired', async () => {
      const token = (await mint(aliceSession)).body.access_token as string;
      expect((await me(token)).status).toBe(200);
      t.clock.advance(899);
      expect((await me(token)).status).toBe(200);
      t.clock.advance(1);
      await refused(token);
      // The session itself lives on (a fresh sign-in for what follows).
      aliceSession = await t.signIn(alice);
    });
  });

  describe('minted from a personal access token', () => {
    it('carries the token’s abilities, never more; narrower on request', async () => {
      const bearer = await pat(bob, ['posts:read', 'comments:*']);
      const response = await mint(t.client(), {}, bearer);
      expect(response.status, response.text).toBe(200);
      const claims = decode((response.body.access_token as string).split('.')[1]!);
      expect(claims.abilities).toEqual(['posts:read', 'comments:*']);
      expect(claims.sid).toMatch(/^token:\d+$/);
      expect(claims.sub).toBe(String(bob.id));

      for (const wider of [['*'], ['posts:*'], ['posts:create'], ['posts:read', 'tokens:read']]) {
        const refused = await mint(t.client(), { abilities: wider }, bearer);
        expect(refused.status, wider.join()).toBe(403);
      }
      const narrower = await mint(t.client(), { abilities: ['comments:read'] }, bearer);
      expect(narrower.status).toBe(200);
      const jwt = narrower.body.access_token as string;
      expect(decode(jwt.split('.')[1]!).abilities).toEqual(['comments:read']);
      // The resource API holds it to them: posts:read is not among them.
      const read = await t.client().get('/api/v1/posts', 'json', { token: jwt });
      expect(read.status).toBe(200);
      const create = await t
        .client()
        .post('/api/v1/posts', { title: 'No', body: 'No', status: 'published' }, 'json', { token: jwt });
      expect(create.status).toBe(403);
    });

    it('a session may ask for a list; invalid names are a 422', async () => {
      const response = await mint(aliceSession, { abilities: ['posts:read'] });
      expect(decode((response.body.access_token as string).split('.')[1]!).abilities).toEqual(['posts:read']);
      const invalid = await mint(aliceSession, { abilities: ['posts:write'] });
      expect(invalid.status).toBe(422);
      expect(invalid.body.errors.abilities).toBeDefined();
    });

    it('never outlives the token it was minted from', async () => {
      const expiresAt = new Date(t.clock.now().getTime() + 120_000).toISOString();
      const response = await mint(t.client(), {}, await pat(bob, ['*'], expiresAt));
      expect(response.body.expires_in).toBe(120);
    });

    it('a service token cannot mint another, nor pass sudo', async () => {
      const jwt = (await mint(aliceSession)).body.access_token as string;
      expect((await mint(t.client(), {}, jwt)).status).toBe(403);
      // Creating a personal access token needs sudo (or a token's ability): a JWT gets neither.
      const created = await t.client().post('/tokens', { name: 'escalate' }, 'json', { token: jwt });
      expect(created.status).toBe(403);
    });

    it('no caller → 401', async () => {
      expect((await mint(t.client())).status).toBe(401);
    });
  });

  it('keys are kept in the database with the private key sealed by the session secret', async () => {
    const rows = await t.services.db.selectFrom('service_token_keys').selectAll().execute();
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row.private_key_sealed).toMatch(/^v1\./);
      expect(row.private_key_sealed).not.toContain('PRIVATE KEY');
      const pem = t.services.secrets.decrypt(`service-token-key:${row.kid}`, row.private_key_sealed);
      expect(pem).toContain('BEGIN PRIVATE KEY');
      expect(JSON.parse(row.public_jwk)).not.toHaveProperty('d');
    }
    expect(JSON.stringify(await jwks())).not.toMatch(/"d"/);
  });

  it('rotation: the new key signs, the old stays published until its last token expires', async () => {
    const before = (await mint(aliceSession)).body.access_token as string;
    const oldKid = decode(before.split('.')[0]!).kid;
    const newKid = await addSigningKey(t.services.db, t.clock, t.services.secrets, 900);
    expect(newKid).not.toBe(oldKid);

    const after = (await mint(aliceSession)).body.access_token as string;
    expect(decode(after.split('.')[0]!).kid).toBe(newKid);
    const keys = await jwks();
    expect(keys.map((key) => key.kid)).toEqual(expect.arrayContaining([oldKid, newKid]));
    expect(independentlyVerified(before, keys)).toBe(true);
    expect(independentlyVerified(after, keys)).toBe(true);
    expect((await me(before)).status).toBe(200);
    expect((await me(after)).status).toBe(200);

    // A server that has not seen the new key yet (another process rotated) finds it in the database.
    const fresh = new KeyRing(t.services.db, t.clock, t.services.secrets, 900);
    expect(await fresh.publicKey(newKid)).toBeDefined();

    t.clock.advance(900);
    expect((await me(before)).status).toBe(401);
    // Published a little longer than the token lifetime, then gone; the new key stays.
    t.clock.advance(61);
    const later = (await jwks()).map((key) => key.kid);
    expect(later).toContain(newKid);
    expect(later).not.toContain(oldKid);
    aliceSession = await t.signIn(alice);
  });

  it('a disabled or inactive user’s JWT is refused (more cases: revocation.test.ts)', async () => {
    const carol = await t.createUser();
    const token = (await mint(await t.signIn(carol))).body.access_token as string;
    expect((await me(token)).status).toBe(200);
    // Written by SQL, as another process would: seen once the remembered row is a second old.
    await t.services.db
      .updateTable('users')
      .set({ disabled_at: t.clock.now().toISOString() })
      .where('id', '=', carol.id)
      .execute();
    t.clock.advance(1);
    expect((await me(token)).status).toBe(401);
    await t.services.db.updateTable('users').set({ disabled_at: null }).where('id', '=', carol.id).execute();
    t.clock.advance(1);
    expect((await me(token)).status).toBe(200);
    // Through Citadel in this process: at once.
    await t.services.users.setActive(carol.id, false);
    expect((await me(token)).status).toBe(401);
  });
});
