import { generateKeyPair, SignJWT, decodeProtectedHeader } from 'jose';
import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';
import {
  MockProvider,
  authorize,
  socialPlugins,
  socialSignIn,
  startSignIn,
} from '../support/mock-provider.ts';
import { loadConfig } from '../../src/config/load.ts';
import { resolveSocialOptions } from '../../src/auth/social/options.ts';

/**
 * Issue 13 item 13: the ID token's signature is checked against the provider's JWKS, and the
 * client authenticates at the token endpoint with HTTP Basic unless configured otherwise.
 * The provider is oauth2-mock-server on loopback; its token answer is rewritten per test.
 */

type TokenRewrite = (idToken: string) => string;

function base64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

function payloadOf(jwt: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
}

interface TokenRequest {
  authorization: string | undefined;
  bodySecret: unknown;
}

describe('ID token signature and token endpoint client authentication', () => {
  let mock: MockProvider;
  let t: TestApp;
  let rewrite: TokenRewrite | null = null;
  const tokenRequests: TokenRequest[] = [];

  beforeAll(async () => {
    mock = await new MockProvider().start();
    mock.server.service.on('beforeResponse', (response: { body: unknown }, req: IncomingMessage) => {
      const body = (req as IncomingMessage & { body?: Record<string, unknown> }).body ?? {};
      tokenRequests.push({ authorization: req.headers.authorization, bodySecret: body.client_secret });
      // oauth2-mock-server does not await listeners: a rewrite must be synchronous here.
      const answer = response.body as Record<string, unknown>;
      if (rewrite && typeof answer.id_token === 'string') answer.id_token = rewrite(answer.id_token);
    });
    t = await startTestApp({
      plugins: socialPlugins([
        mock.providerConfig(),
        { ...mock.providerConfig('posting'), tokenEndpointAuth: 'client_secret_post' },
      ]),
    });
  });
  afterAll(async () => {
    await t?.close();
    await mock?.stop();
  });
  beforeEach(() => {
    rewrite = null;
    tokenRequests.length = 0;
  });

  const identity = (sub: string) => ({ sub, email: `${sub}@example.com`, email_verified: true });

  it('signs in with a token the provider signed (control)', async () => {
    const response = await socialSignIn(mock, t.client(), identity('genuine'));
    expect(response.status, response.text).toBe(200);
  });

  it('refuses an ID token whose payload was changed after signing (400, nobody signed in)', async () => {
    rewrite = (jwt) => {
      const [header, , signature] = jwt.split('.');
      // The subject stays (the UserInfo answer must match it): only the signature gives it away.
      const claims = { ...payloadOf(jwt), email: 'victim@example.com', email_verified: true };
      return `${header}.${base64url(claims)}.${signature}`;
    };
    const client = t.client();
    const response = await socialSignIn(mock, client, identity('attacker'));
    expect(response.status, response.text).toBe(400);
    expect(response.body).toMatchObject({ action: 'social.login', status: 'error' });
    expect((await client.get('/me')).status).toBe(401);
    const victim = await t.services.db
      .selectFrom('users')
      .select('id')
      .where('email', '=', 'victim@example.com')
      .executeTakeFirst();
    expect(victim).toBeUndefined();
  });

  it('refuses an unsigned ID token (alg "none")', async () => {
    rewrite = (jwt) => `${base64url({ alg: 'none', typ: 'JWT' })}.${jwt.split('.')[1]}.`;
    const response = await socialSignIn(mock, t.client(), identity('unsigned'));
    expect(response.status, response.text).toBe(400);
  });

  it('refuses an ID token signed by another key under the provider key id', async () => {
    const { privateKey } = await generateKeyPair('RS256');
    // A genuine token shows the provider's key id and claims to copy.
    let genuine = '';
    rewrite = (jwt) => (genuine = jwt);
    expect((await socialSignIn(mock, t.client(), identity('template'))).status).toBe(200);
    const kid = decodeProtectedHeader(genuine).kid!;
    // The forged token carries this attempt's nonce, so only its signature is wrong.
    const client = t.client();
    mock.identity = identity('other-key');
    const url = await startSignIn(client);
    const forged = await new SignJWT({
      ...payloadOf(genuine),
      nonce: url.searchParams.get('nonce'),
      sub: 'other-key',
    })
      .setProtectedHeader({ alg: 'RS256', kid })
      .sign(privateKey);
    rewrite = () => forged;
    const response = await client.get(await authorize(url), 'json');
    expect(response.status, response.text).toBe(400);
    expect((await client.get('/me')).status).toBe(401);
  });

  it('authenticates with HTTP Basic by default and never puts the secret in the body', async () => {
    const response = await socialSignIn(mock, t.client(), identity('basic-auth'));
    expect(response.status, response.text).toBe(200);
    expect(tokenRequests).toHaveLength(1);
    const [request] = tokenRequests;
    const basic = /^Basic (.+)$/.exec(request!.authorization ?? '')?.[1];
    expect(basic).toBeDefined();
    // RFC 6749 §2.3.1: id and secret are form-encoded, then joined by ":" and Base64-encoded.
    const [id, secret] = Buffer.from(basic!, 'base64').toString().split(':').map(decodeURIComponent);
    expect([id, secret]).toEqual(['citadel-test-client', 'citadel-test-secret']);
    expect(request!.bodySecret).toBeUndefined();
  });

  it('sends the secret in the body when a provider is configured for client_secret_post', async () => {
    mock.identity = identity('post-auth');
    const client = t.client();
    const callback = await authorize(await startSignIn(client, 'posting'));
    const response = await client.get(callback, 'json');
    expect(response.status, response.text).toBe(200);
    expect(tokenRequests).toHaveLength(1);
    expect(tokenRequests[0]!.authorization).toBeUndefined();
    expect(tokenRequests[0]!.bodySecret).toBe('citadel-test-secret');
  });

  it('reads OAUTH_<ID>_TOKEN_AUTH, defaulting to client_secret_basic, and refuses other values', () => {
    const env = {
      OAUTH_PROVIDERS: 'corp,legacy',
      OAUTH_CORP_CLIENT_ID: 'a',
      OAUTH_CORP_CLIENT_SECRET: 'b',
      OAUTH_CORP_ISSUER: 'https://id.corp.example',
      OAUTH_LEGACY_CLIENT_ID: 'c',
      OAUTH_LEGACY_CLIENT_SECRET: 'd',
      OAUTH_LEGACY_ISSUER: 'https://legacy.example',
      OAUTH_LEGACY_TOKEN_AUTH: 'client_secret_post',
    };
    const load = (e: Record<string, string>) =>
      resolveSocialOptions({}, loadConfig({ env: e, sessionSecret: 'x'.repeat(40) })).providers;
    const providers = load(env);
    expect(providers.map((p) => p.tokenEndpointAuth)).toEqual(['client_secret_basic', 'client_secret_post']);
    expect(() => load({ ...env, OAUTH_LEGACY_TOKEN_AUTH: 'private_key_jwt' })).toThrow(
      /OAUTH_LEGACY_TOKEN_AUTH/,
    );
  });
});
