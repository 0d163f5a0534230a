/**
 * The provider's JWS signing on the server's one key set: RS256 by default and EdDSA on request,
 * `typ` checked on verification, the header `typ` read to tell token kinds apart, and a retired
 * key published as long as the provider's longest token lifetime (longer than a service token's).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { defaultPlugins } from '../../../src/auth/index.ts';
import { oauthProvider } from '../../../src/auth/oauth-provider/plugin.ts';
import { signJwt, verifyJwt } from '../../../src/auth/oauth-provider/jwt.ts';
import { providerKeys } from '../../../src/auth/oauth-provider/keys.ts';
import { jwsHeaderTyp } from '../../../src/auth/core/signing-keys.ts';
import { withChallengeParams } from '../../../src/auth/core/bearer-challenge.ts';
import { rotateSigningKeys } from '../../../src/auth/service-tokens/keys.ts';

const ISSUER = 'http://localhost:3000';
const header = (token: string) =>
  JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()) as Record<string, unknown>;

describe('provider JWTs on the one key set', () => {
  let t: TestApp;
  beforeAll(async () => {
    // Access tokens live an hour here: four times a service token's 15 minutes.
    t = await startTestApp({
      plugins: [...defaultPlugins(), oauthProvider({ accessTokenTtlSeconds: 3600 })],
    });
  });
  afterAll(async () => t?.close());

  const claims = () => {
    const now = Math.floor(t.clock.now().getTime() / 1000);
    return { iss: ISSUER, sub: '1', aud: 'client', iat: now, exp: now + 300 };
  };
  const jwks = async () =>
    ((await t.client().get('/.well-known/jwks.json')).body.keys as { kid: string; kty: string }[]).map(
      (key) => key.kid,
    );

  it('signs RS256 by default and EdDSA on request; verifies only the typ asked for', async () => {
    const keys = providerKeys(t.services);
    const rs = await signJwt(keys, claims(), { typ: 'JWT' });
    const ed = await signJwt(keys, claims(), { typ: 'JWT', alg: 'EdDSA' });
    expect(header(rs)).toMatchObject({ alg: 'RS256', typ: 'JWT' });
    expect(header(ed)).toMatchObject({ alg: 'EdDSA', typ: 'JWT' });
    expect(await jwks()).toEqual(expect.arrayContaining([header(rs).kid, header(ed).kid]));
    const now = t.clock.now();
    for (const token of [rs, ed]) {
      expect(
        await verifyJwt(keys, token, { typ: 'JWT', issuer: ISSUER, audience: 'client', now }),
      ).not.toBeNull();
      expect(await verifyJwt(keys, token, { typ: 'at+jwt', issuer: ISSUER, now })).toBeNull();
      expect(await verifyJwt(keys, token, { typ: 'JWT', issuer: ISSUER, audience: 'other', now })).toBeNull();
    }
    expect(await verifyJwt(keys, rs, { typ: 'JWT', issuer: ISSUER, algorithms: ['EdDSA'], now })).toBeNull();
  });

  it('reads the header typ without verifying (RFC 7515 §4.1.9: case and application/ prefix)', () => {
    const token = (typ: unknown) =>
      `${Buffer.from(JSON.stringify({ alg: 'RS256', typ })).toString('base64url')}.e30.sig`;
    expect(jwsHeaderTyp(token('at+jwt'))).toBe('at+jwt');
    expect(jwsHeaderTyp(token('application/AT+JWT'))).toBe('at+jwt');
    expect(jwsHeaderTyp(token('JWT'))).toBe('jwt');
    expect(jwsHeaderTyp(token(7))).toBeUndefined();
    expect(jwsHeaderTyp('not-base64-json.e30.sig')).toBeUndefined();
    expect(jwsHeaderTyp('nodots')).toBeUndefined();
  });

  it('adds the resource metadata to a Bearer challenge', () => {
    const params = 'resource_metadata="https://a.example/.well-known/oauth-protected-resource"';
    expect(withChallengeParams('Bearer', params)).toBe(`Bearer ${params}`);
    expect(withChallengeParams('Bearer error="invalid_token"', params)).toBe(
      `Bearer error="invalid_token", ${params}`,
    );
  });

  it('a retired key stays published as long as the longest token signed with it', async () => {
    const keys = providerKeys(t.services);
    const before = header(await signJwt(keys, claims(), { typ: 'at+jwt' })).kid as string;
    await rotateSigningKeys(t.services.db, t.clock, t.services.secrets, 900);
    const after = header(await signJwt(keys, claims(), { typ: 'at+jwt' })).kid as string;
    expect(after).not.toBe(before);
    // Past a service token's lifetime (900 s and the minute's margin): an access token may live on.
    t.clock.advance(900 + 61);
    expect(await jwks()).toContain(before);
    // Past the access tokens' hour: gone; the new key stays.
    t.clock.advance(3600 - 900);
    const later = await jwks();
    expect(later).not.toContain(before);
    expect(later).toContain(after);
  });
});
