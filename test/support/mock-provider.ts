import { OAuth2Server } from 'oauth2-mock-server';
import { afterAll, beforeAll, expect } from 'vitest';
import type { TestClient, TestResponse } from './client.ts';
import { startTestApp, type TestApp, type TestAppOptions } from './app.ts';
import type { OAuthProviderConfig } from '../../src/config/types.ts';
import { defaultPlugins } from '../../src/auth/index.ts';

/** Who the mock provider says is signing in next. */
export interface MockIdentity {
  sub: string;
  email?: string;
  email_verified?: boolean;
  preferred_username?: string;
  name?: string;
}

/**
 * oauth2-mock-server on loopback as a real OpenID Connect provider (discovery, JWKS, signed ID
 * tokens, PKCE), with the identity of the next sign-in set by the test.
 */
export class MockProvider {
  readonly server = new OAuth2Server();
  identity: MockIdentity = { sub: 'johndoe' };
  /** Every access token the provider issued, to prove none is stored. */
  readonly issuedAccessTokens: string[] = [];

  async start(): Promise<this> {
    await this.server.issuer.keys.generate('RS256');
    await this.server.start(0, '127.0.0.1');
    this.server.service.on('beforeTokenSigning', (token) => {
      token.payload.sub = this.identity.sub;
      // RFC 6749 §2.3.1: HTTP Basic credentials are form-encoded before Base64 ("-" may arrive as
      // "%2D"); oauth2-mock-server takes the client id from them without decoding. A real
      // provider decodes, so the fixture does.
      if (typeof token.payload.aud === 'string') token.payload.aud = decodeURIComponent(token.payload.aud);
    });
    this.server.service.on('beforeResponse', (response) => {
      const body = response.body as Record<string, unknown>;
      if (typeof body.access_token === 'string') this.issuedAccessTokens.push(body.access_token);
    });
    this.server.service.on('beforeUserinfo', (response) => {
      response.body = { ...this.identity };
    });
    return this;
  }

  get issuer(): string {
    return this.server.issuer.url!;
  }

  providerConfig(id = 'mock'): OAuthProviderConfig {
    return {
      id,
      label: 'Mock',
      clientId: 'citadel-test-client',
      clientSecret: 'citadel-test-secret',
      issuer: this.issuer,
      scopes: ['openid', 'email', 'profile'],
    };
  }

  async stop(): Promise<void> {
    await this.server.stop();
  }
}

/** GET /oauth/<id>: the 302 to the provider's authorize endpoint. */
export async function startSignIn(client: TestClient, provider = 'mock'): Promise<URL> {
  const start = await client.get(`/oauth/${provider}`, 'form');
  expect(start.status, start.text).toBe(302);
  return new URL(start.location!);
}

/** Let the provider's authorize endpoint answer (it redirects back); the callback path with query. */
export async function authorize(url: URL): Promise<string> {
  const response = await fetch(url, { redirect: 'manual' });
  expect(response.status).toBe(302);
  const back = new URL(response.headers.get('location')!);
  return back.pathname + back.search;
}

/** The whole round trip as `identity`, answered to a client of `kind`. */
export async function socialSignIn(
  mock: MockProvider,
  client: TestClient,
  identity: MockIdentity,
  kind: 'json' | 'form' = 'json',
): Promise<TestResponse> {
  mock.identity = identity;
  const callback = await authorize(await startSignIn(client));
  return client.get(callback, kind);
}

/** The provider and an app that signs in with it, for one test file. */
export interface SocialTestApp {
  readonly mock: MockProvider;
  readonly t: TestApp;
}

/**
 * Start the provider and an app configured with it before the file's tests, and stop both after
 * (call at the top of a `describe`).
 */
/** The built-ins with these social providers. */
export function socialPlugins(providers: OAuthProviderConfig[]) {
  return defaultPlugins({ social: { providers } });
}

export function useSocialApp(options: TestAppOptions = {}): SocialTestApp {
  const state = {} as { mock: MockProvider; t: TestApp };
  beforeAll(async () => {
    state.mock = await new MockProvider().start();
    state.t = await startTestApp({ ...options, plugins: socialPlugins([state.mock.providerConfig()]) });
  });
  afterAll(async () => {
    await state.t?.close();
    await state.mock?.stop();
  });
  return state;
}
