import * as oidc from 'openid-client';
import { expect } from 'vitest';
import { startListeningTestApp } from '../../support/browser.ts';
import { TEST_PASSWORD, type TestApp } from '../../support/app.ts';
import type { TestClient, TestResponse } from '../../support/client.ts';
import { defaultPlugins } from '../../../src/auth/index.ts';
import { oauthProvider } from '../../../src/auth/oauth-provider/plugin.ts';
import { createClient, type NewClient } from '../../../src/auth/oauth-provider/clients.ts';
import type { UserRecord } from '../../../src/auth/core/users.ts';

export const WEB_CALLBACK = 'https://rp.example.com/callback';
export const LOGOUT_CALLBACK = 'https://rp.example.com/signed-out';

/** A Citadel with the OAuth provider, listening on loopback (the issuer is its real URL). */
export async function startProvider(): Promise<{ t: TestApp; issuer: string }> {
  const { t, base } = await startListeningTestApp({
    plugins: [...defaultPlugins(), oauthProvider({ dynamicRegistration: true })],
  });
  return { t, issuer: base };
}

/** Register a client directly in the store. */
export async function registerClient(t: TestApp, overrides: Partial<NewClient> = {}) {
  return createClient(
    t.services.db,
    {
      client_name: 'Relying Party',
      redirect_uris: [WEB_CALLBACK],
      post_logout_redirect_uris: [LOGOUT_CALLBACK],
      application_type: 'web',
      token_endpoint_auth_method: 'client_secret_basic',
      scope: ['openid', 'profile', 'email', 'offline_access', 'posts:read'],
      id_token_signed_response_alg: 'RS256',
      registration: 'admin',
      ...overrides,
    },
    t.clock.now(),
  );
}

/** openid-client as an independent relying party, discovering the provider over real HTTP. */
export async function relyingParty(
  issuer: string,
  clientId: string,
  secret: string | null,
  method: 'basic' | 'post' | 'none' = 'basic',
  metadata: Partial<oidc.ClientMetadata> = {},
): Promise<oidc.Configuration> {
  const auth =
    method === 'none'
      ? oidc.None()
      : method === 'post'
        ? oidc.ClientSecretPost(secret!)
        : oidc.ClientSecretBasic(secret!);
  return oidc.discovery(new URL(issuer), clientId, { [oidc.clockTolerance]: 120, ...metadata }, auth, {
    execute: [oidc.allowInsecureRequests],
  });
}

/** What an authorization request needs to be checked later. */
export interface Started {
  url: URL;
  verifier: string;
  state: string;
  nonce: string;
}

export async function startAuthorization(
  config: oidc.Configuration,
  parameters: Record<string, string> = {},
): Promise<Started> {
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: WEB_CALLBACK,
    scope: 'openid profile email offline_access',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    nonce,
    ...parameters,
  });
  return { url, verifier, state, nonce };
}

/** The browser's last stop: a page of the provider, or the URL it left the provider for. */
export interface Stop {
  response?: TestResponse;
  /** Absolute URL outside the provider (the client's redirect URI). */
  external?: URL;
  /** The provider path shown, when the browser stopped on a page. */
  path?: string;
}

/** Follow redirects like a browser (GET), staying inside the provider; stop at a page or outside. */
export async function follow(browser: TestClient, issuer: string, url: string): Promise<Stop> {
  let next = new URL(url, issuer);
  for (let hops = 0; hops < 10; hops += 1) {
    if (next.origin !== new URL(issuer).origin) return { external: next };
    const path = `${next.pathname}${next.search}`;
    const response = await browser.get(path, 'form');
    if (response.status >= 300 && response.status < 400 && response.location) {
      next = new URL(response.location, next);
      continue;
    }
    return { response, path };
  }
  throw new Error('too many redirects');
}

/** A form post, then its redirects. */
export async function submit(
  browser: TestClient,
  issuer: string,
  path: string,
  body: Record<string, string>,
): Promise<Stop> {
  const response = await browser.post(path, body, 'form');
  if (response.status >= 300 && response.status < 400 && response.location)
    return follow(browser, issuer, new URL(response.location, new URL(path, issuer)).href);
  return { response, path };
}

/** Sign in on the provider's own form, where the authorization sent the browser. */
export async function signInOnForm(browser: TestClient, issuer: string, user: UserRecord): Promise<Stop> {
  return submit(browser, issuer, '/login', { email: user.email, password: TEST_PASSWORD });
}

/** Answer the consent page. */
export async function answerConsent(
  browser: TestClient,
  issuer: string,
  decision: 'allow' | 'deny' = 'allow',
): Promise<Stop> {
  return submit(browser, issuer, '/oauth2/authorize/consent', { decision });
}

/** Everything from the authorization URL to the callback URL, for a user not yet signed in. */
export async function authorizeAsNewBrowser(
  t: TestApp,
  issuer: string,
  started: Started,
  user: UserRecord,
): Promise<{ browser: TestClient; callback: URL }> {
  const browser = t.client();
  const first = await follow(browser, issuer, started.url.href);
  expect(first.path).toBe('/login');
  const signedIn = await signInOnForm(browser, issuer, user);
  // A consent given before is remembered: straight back to the client.
  if (signedIn.external) return { browser, callback: signedIn.external };
  expect(signedIn.path, signedIn.response?.text).toBe('/oauth2/authorize/continue');
  expect(signedIn.response?.text).toContain('Allow');
  const consented = await answerConsent(browser, issuer);
  expect(consented.external, consented.response?.text).toBeDefined();
  return { browser, callback: consented.external! };
}

/** The claims of a compact JWS, unverified (openid-client verified it already). */
export function jwtClaims(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as Record<
    string,
    unknown
  >;
}

export function jwtHeader(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString('utf8')) as Record<
    string,
    unknown
  >;
}
