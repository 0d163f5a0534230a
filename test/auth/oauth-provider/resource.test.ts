/**
 * The resource API as an OAuth protected resource: RFC 9068 access tokens as bearers (scopes are
 * abilities, `aud` must be the API, `typ` tells them apart, a revoked grant stops them), RFC 9728
 * metadata and the `WWW-Authenticate` challenge of every 401. Tokens are minted by the provider's
 * own signer on real grants; they are verified independently (node:crypto, and jose's remote JWKS
 * over HTTP) against the JWKS the server publishes.
 */
import {
  createHash,
  createPublicKey,
  createHmac,
  generateKeyPairSync,
  randomBytes,
  verify,
} from 'node:crypto';
import { createRemoteJWKSet, jwtVerify, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertPosts, startBlogApp, type BlogApp } from '../../support/api-app.ts';
import type { UserRecord } from '../../../src/auth/core/users.ts';
import { createClient, type NewClient } from '../../../src/auth/oauth-provider/clients.ts';
import { createGrant, issueCode, revokeGrant } from '../../../src/auth/oauth-provider/token-store.ts';
import { mintAccessToken } from '../../../src/auth/oauth-provider/access-token.ts';
import { signJwt } from '../../../src/auth/oauth-provider/jwt.ts';
import { providerKeys, type JwsAlgorithm } from '../../../src/auth/oauth-provider/keys.ts';
import { rotateSigningKeys } from '../../../src/auth/service-tokens/keys.ts';

const ISSUER = 'http://localhost:3000';
const API = `${ISSUER}/api`;
const METADATA_URL = `${ISSUER}/.well-known/oauth-protected-resource`;

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const decode = (part: string) =>
  JSON.parse(Buffer.from(part, 'base64url').toString()) as Record<string, unknown>;

interface Jwk {
  kty: string;
  kid: string;
  alg: string;
  [name: string]: unknown;
}

/** Independent check: the JWS signature over `header.payload` with the published key of `kid`. */
function independentlyVerified(token: string, keys: Jwk[]): boolean {
  const [header, payload, signature] = token.split('.');
  const { alg, kid } = decode(header!);
  const jwk = keys.find((key) => key.kid === kid);
  if (!jwk || jwk.alg !== alg) return false;
  const { kty, n, e, crv, x } = jwk;
  const publicKey = createPublicKey({
    key: (kty === 'RSA' ? { kty, n, e } : { kty, crv, x }) as import('node:crypto').JsonWebKey,
    format: 'jwk',
  });
  const data = Buffer.from(`${header}.${payload}`);
  const sig = Buffer.from(signature!, 'base64url');
  return alg === 'RS256' ? verify('sha256', data, publicKey, sig) : verify(null, data, publicKey, sig);
}

const webClient = (scope: string[]): NewClient => ({
  client_name: 'Resource test app',
  redirect_uris: ['https://app.example.com/callback'],
  post_logout_redirect_uris: [],
  application_type: 'web',
  token_endpoint_auth_method: 'client_secret_basic',
  scope,
  id_token_signed_response_alg: 'RS256',
  registration: 'admin',
});

describe('OAuth access tokens at the resource API', () => {
  let t: BlogApp;
  let alice: UserRecord;
  let bob: UserRecord;
  let clientId: string;
  let baseUrl: string;

  beforeAll(async () => {
    t = await startBlogApp();
    alice = await t.createUser();
    bob = await t.createUser();
    await insertPosts(t, alice, [{ title: 'Alice draft', status: 'draft' }]);
    await insertPosts(t, bob, [{ title: 'Bob draft', status: 'draft' }]);
    const scope = ['openid', 'my_posts:read', 'posts:read', 'posts:create'];
    ({
      client: { client_id: clientId },
    } = await createClient(t.services.db, webClient(scope), t.clock.now()));
    baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => t?.close());

  /** A grant of `user` to the client and an access token of it. */
  async function accessToken(
    options: {
      user?: UserRecord;
      scope?: string[];
      audience?: string;
      alg?: JwsAlgorithm;
      client?: string;
    } = {},
  ) {
    const user = options.user ?? alice;
    const scope = options.scope ?? ['openid', 'my_posts:read'];
    const client = options.client ?? clientId;
    const grantId = await createGrant(
      t.services.db,
      {
        userId: user.id,
        clientId: client,
        scope,
        resource: API,
        authTime: t.clock.now().toISOString(),
        amr: ['pwd'],
      },
      t.clock.now(),
    );
    const minted = await mintAccessToken(providerKeys(t.services), {
      issuer: ISSUER,
      userId: user.id,
      clientId: client,
      scope,
      audience: options.audience ?? API,
      grantId,
      authTime: t.clock.now(),
      ttlSeconds: 600,
      now: t.clock.now(),
      alg: options.alg,
    });
    return { token: minted.token, grantId };
  }

  const myPosts = (token: string) => t.client().get('/api/v1/my_posts', 'json', { token });
  const titles = (response: { body: { data: { title: string }[] } }) =>
    response.body.data.map((post) => post.title);

  it('publishes the protected resource metadata (RFC 9728), open to any origin', async () => {
    const response = await fetch(`${baseUrl}/.well-known/oauth-protected-resource`, {
      headers: { origin: 'https://elsewhere.example' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    const document = (await response.json()) as Record<string, unknown>;
    expect(document).toMatchObject({
      resource: API,
      authorization_servers: [ISSUER],
      bearer_methods_supported: ['header'],
    });
    const scopes = document.scopes_supported as string[];
    expect(scopes).toEqual(expect.arrayContaining(['posts:read', 'posts:create', 'my_posts:read']));
    expect(scopes).not.toContain('*');
    expect(scopes).not.toContain('openid');
    // The JWKS too: browser-based clients verify tokens with it.
    const jwks = await fetch(`${baseUrl}/.well-known/jwks.json`, {
      headers: { origin: 'https://elsewhere.example' },
    });
    expect(jwks.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('every 401 of the resource API names the metadata; an invalid token says invalid_token', async () => {
    const anonymous = await t.client().get('/api/v1/my_posts');
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers['www-authenticate']).toBe(`Bearer resource_metadata="${METADATA_URL}"`);

    const invalid = await myPosts('not-a-token');
    expect(invalid.status).toBe(401);
    expect(invalid.headers['www-authenticate']).toBe(
      `Bearer error="invalid_token", resource_metadata="${METADATA_URL}"`,
    );
    // A 403 (a token short of the scope) keeps RFC 6750's insufficient_scope.
    const { token } = await accessToken({ scope: ['openid'] });
    const short = await myPosts(token);
    expect(short.status).toBe(403);
    expect(short.headers['www-authenticate']).toBe(
      'Bearer error="insufficient_scope", scope="my_posts:read"',
    );
  });

  it('a token reads with its scopes as abilities, as its user', async () => {
    const { token } = await accessToken();
    const [, payload] = token.split('.');
    expect(decode(token.split('.')[0]!)).toMatchObject({ typ: 'at+jwt', alg: 'RS256' });
    expect(decode(payload!)).toMatchObject({
      iss: ISSUER,
      sub: String(alice.id),
      aud: API,
      client_id: clientId,
      scope: 'openid my_posts:read',
    });
    const read = await myPosts(token);
    expect(read.status).toBe(200);
    expect(titles(read)).toEqual(['Alice draft']);
    // Bob's token reads Bob's posts.
    expect(titles(await myPosts((await accessToken({ user: bob })).token))).toEqual(['Bob draft']);
  });

  it('writes need the write scope', async () => {
    const post = { title: 'By OAuth', body: 'Hello', status: 'published' };
    const readOnly = (await accessToken({ scope: ['posts:read'] })).token;
    const refused = await t.client().post('/api/v1/posts', post, 'json', { token: readOnly });
    expect(refused.status).toBe(403);
    const writer = (await accessToken({ scope: ['posts:read', 'posts:create'] })).token;
    const created = await t.client().post('/api/v1/posts', post, 'json', { token: writer });
    expect(created.status).toBe(201);
    expect(created.body.data.title).toBe('By OAuth');
  });

  it('an EdDSA access token works too', async () => {
    const { token } = await accessToken({ alg: 'EdDSA' });
    expect(decode(token.split('.')[0]!)).toMatchObject({ typ: 'at+jwt', alg: 'EdDSA' });
    expect((await myPosts(token)).status).toBe(200);
  });

  it('a token for another audience is refused by the API, and API tokens act nowhere else', async () => {
    for (const audience of ['https://other.example/api', ISSUER, `${API}/v1`]) {
      const { token } = await accessToken({ audience });
      const response = await myPosts(token);
      expect(response.status, audience).toBe(401);
      expect(response.headers['www-authenticate']).toContain('error="invalid_token"');
    }
    // An access token for the API is not a credential for Citadel's own account endpoints.
    const { token } = await accessToken();
    expect((await t.client().get('/me', 'json', { token })).status).toBe(401);
    expect((await t.client().get('/tokens', 'json', { token })).status).toBe(401);
  });

  it('an ID token is never a bearer, even signed by the provider', async () => {
    const now = Math.floor(t.clock.now().getTime() / 1000);
    const claims = { iss: ISSUER, sub: String(alice.id), iat: now, exp: now + 600, auth_time: now };
    for (const aud of [clientId, API, ISSUER]) {
      const idToken = await signJwt(providerKeys(t.services), { ...claims, aud }, { typ: 'JWT' });
      expect((await myPosts(idToken)).status, aud).toBe(401);
    }
    // Without a typ at all (the access-token claims, but not declared as one).
    const key = await providerKeys(t.services).signingKey('RS256');
    const untyped = await new SignJWT({
      client_id: clientId,
      scope: 'my_posts:read',
      jti: 'x',
      grant_id: '1',
    })
      .setProtectedHeader({ alg: 'RS256', kid: key.kid })
      .setIssuer(ISSUER)
      .setSubject(String(alice.id))
      .setAudience(API)
      .setIssuedAt(now)
      .setExpirationTime(now + 600)
      .sign(key.privateKey);
    expect((await myPosts(untyped)).status).toBe(401);
  });

  it('an expired token is refused (the clock passes its exp)', async () => {
    const { token } = await accessToken();
    expect((await myPosts(token)).status).toBe(200);
    t.clock.advance(601);
    try {
      expect((await myPosts(token)).status).toBe(401);
    } finally {
      t.clock.advance(-601);
    }
  });

  it('a revoked grant (consent withdrawn, refresh or code reuse) stops its tokens at once', async () => {
    const { token, grantId } = await accessToken();
    expect((await myPosts(token)).status).toBe(200);
    await revokeGrant(t.services.db, grantId, t.clock.now());
    expect((await myPosts(token)).status).toBe(401);
    // Another grant of the same user and client is unaffected.
    expect((await myPosts((await accessToken()).token)).status).toBe(200);
  });

  it('a disabled client’s tokens, and a disabled user’s, are refused', async () => {
    const other = await createClient(t.services.db, webClient(['my_posts:read']), t.clock.now());
    const { token } = await accessToken({ client: other.client.client_id });
    expect((await myPosts(token)).status).toBe(200);
    await t.services.db
      .updateTable('oauth_clients')
      .set({ disabled_at: t.clock.now().toISOString() })
      .where('client_id', '=', other.client.client_id)
      .execute();
    expect((await myPosts(token)).status).toBe(401);

    const carol = await t.createUser();
    const carols = (await accessToken({ user: carol })).token;
    expect((await myPosts(carols)).status).toBe(200);
    await t.services.db.updateTable('users').set({ active: 0 }).where('id', '=', carol.id).execute();
    expect((await myPosts(carols)).status).toBe(401);
  });

  it('tampered, alg none, HS256 with the public key, and foreign keys are refused', async () => {
    const { token } = await accessToken();
    const [header, payload, signature] = token.split('.');
    const claims = decode(payload!);
    const more = b64({ ...claims, scope: 'my_posts:read posts:delete' });
    expect((await myPosts(`${header}.${more}.${signature}`)).status).toBe(401);
    const otherSub = b64({ ...claims, sub: String(bob.id) });
    expect((await myPosts(`${header}.${otherSub}.${signature}`)).status).toBe(401);

    const none = `${b64({ alg: 'none', typ: 'at+jwt' })}.${payload}.`;
    expect((await myPosts(none)).status).toBe(401);

    const keys = (await (await fetch(`${baseUrl}/.well-known/jwks.json`)).json()) as { keys: Jwk[] };
    const rsa = keys.keys.find((key) => key.kty === 'RSA')!;
    const hsHeader = b64({ alg: 'HS256', typ: 'at+jwt', kid: rsa.kid });
    const secret = createPublicKey({ key: { kty: 'RSA', n: rsa.n, e: rsa.e } as never, format: 'jwk' })
      .export({ format: 'pem', type: 'spki' })
      .toString();
    const hs = createHmac('sha256', secret).update(`${hsHeader}.${payload}`).digest('base64url');
    expect((await myPosts(`${hsHeader}.${payload}.${hs}`)).status).toBe(401);

    // Well-formed, but signed by a key the server never published (with its kid, or another).
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    for (const kid of [rsa.kid, 'f'.repeat(32)]) {
      const forged = await new SignJWT(claims)
        .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid })
        .sign(privateKey);
      expect((await myPosts(forged)).status).toBe(401);
    }
  });

  it('tokens from the token endpoint: code exchange and refresh read the API; a reused refresh token stops them', async () => {
    const confidential = await createClient(
      t.services.db,
      webClient(['openid', 'offline_access', 'my_posts:read']),
      t.clock.now(),
    );
    const basic = `Basic ${Buffer.from(`${confidential.client.client_id}:${confidential.clientSecret}`).toString('base64')}`;
    const token = async (form: Record<string, string>) => {
      const response = await fetch(`${baseUrl}/oauth2/token`, {
        method: 'POST',
        headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form),
      });
      return { status: response.status, body: (await response.json()) as Record<string, string> };
    };
    const grantId = await createGrant(
      t.services.db,
      {
        userId: alice.id,
        clientId: confidential.client.client_id,
        scope: ['openid', 'offline_access', 'my_posts:read'],
        resource: API,
        authTime: t.clock.now().toISOString(),
        amr: ['pwd'],
      },
      t.clock.now(),
    );
    const verifier = randomBytes(32).toString('base64url');
    const code = await issueCode(
      t.services.db,
      {
        grantId,
        redirectUri: 'https://app.example.com/callback',
        codeChallenge: createHash('sha256').update(verifier).digest('base64url'),
        nonce: null,
      },
      new Date(t.clock.now().getTime() + 60_000),
    );
    const exchanged = await token({
      grant_type: 'authorization_code',
      code,
      redirect_uri: 'https://app.example.com/callback',
      code_verifier: verifier,
    });
    expect(exchanged.status).toBe(200);
    const first = exchanged.body.access_token!;
    expect(decode(first.split('.')[0]!)).toMatchObject({ typ: 'at+jwt' });
    expect(decode(first.split('.')[1]!)).toMatchObject({ aud: API, sub: String(alice.id) });
    expect(titles(await myPosts(first))).toContain('Alice draft');
    // The ID token of the same answer is no bearer.
    expect((await myPosts(exchanged.body.id_token!)).status).toBe(401);

    const refreshed = await token({
      grant_type: 'refresh_token',
      refresh_token: exchanged.body.refresh_token!,
    });
    expect(refreshed.status).toBe(200);
    const second = refreshed.body.access_token!;
    expect((await myPosts(second)).status).toBe(200);
    // The first refresh token again: reuse revokes the grant, and both access tokens stop.
    const reused = await token({ grant_type: 'refresh_token', refresh_token: exchanged.body.refresh_token! });
    expect(reused.status).toBe(400);
    expect((await myPosts(first)).status).toBe(401);
    expect((await myPosts(second)).status).toBe(401);
  });

  it('service tokens keep their rules beside OAuth tokens', async () => {
    const session = await t.signIn(alice);
    const minted = await session.post('/token', {});
    expect(minted.status).toBe(200);
    const serviceToken = minted.body.access_token as string;
    expect(decode(serviceToken.split('.')[0]!)).toMatchObject({ alg: 'EdDSA', typ: 'JWT' });
    expect((await myPosts(serviceToken)).status).toBe(200);
    expect((await t.client().get('/me', 'json', { token: serviceToken })).status).toBe(200);
  });

  it('tokens verify independently against the JWKS fetched over HTTP; rotation keeps old ones valid', async () => {
    const rs = (await accessToken()).token;
    const ed = (await accessToken({ alg: 'EdDSA' })).token;
    const jwksUrl = new URL(`${baseUrl}/.well-known/jwks.json`);
    const fetched = (await (await fetch(jwksUrl)).json()) as { keys: Jwk[] };
    expect(fetched.keys.map((key) => key.kty).sort()).toEqual(['OKP', 'RSA']);
    expect(JSON.stringify(fetched)).not.toMatch(/"(d|p|q|dp|dq|qi)"/);
    expect(independentlyVerified(rs, fetched.keys)).toBe(true);
    expect(independentlyVerified(ed, fetched.keys)).toBe(true);
    const remote = createRemoteJWKSet(jwksUrl);
    for (const token of [rs, ed]) {
      const { payload, protectedHeader } = await jwtVerify(token, remote, {
        issuer: ISSUER,
        audience: API,
        typ: 'at+jwt',
        currentDate: t.clock.now(),
      });
      expect(protectedHeader.typ).toBe('at+jwt');
      expect(payload.client_id).toBe(clientId);
    }

    // keys:rotate rotates both algorithms; the old tokens stay valid, new ones use the new keys.
    const kids = await rotateSigningKeys(t.services.db, t.clock, t.services.secrets, 900);
    expect(kids).toHaveLength(2);
    const after = (await accessToken()).token;
    expect(kids).toContain(decode(after.split('.')[0]!).kid);
    const published = ((await (await fetch(jwksUrl)).json()) as { keys: Jwk[] }).keys;
    expect(published).toHaveLength(4);
    for (const token of [rs, ed, after]) {
      expect(independentlyVerified(token, published)).toBe(true);
      expect((await myPosts(token)).status).toBe(200);
    }
  });
});
