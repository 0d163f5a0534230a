import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../../support/app.ts';
import {
  WEB_CALLBACK,
  authorizeAsNewBrowser,
  follow,
  registerClient,
  relyingParty,
  signInOnForm,
  startAuthorization,
  startProvider,
} from './flow-fixture.ts';

/** POST a form to the token endpoint over real HTTP; the JSON answer and status. */
async function tokenRequest(
  issuer: string,
  fields: Record<string, string>,
  basic?: { id: string; secret: string },
): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (basic)
    headers.authorization = `Basic ${Buffer.from(
      `${encodeURIComponent(basic.id)}:${encodeURIComponent(basic.secret)}`,
    ).toString('base64')}`;
  const response = await fetch(`${issuer}/oauth2/token`, {
    method: 'POST',
    headers,
    body: new URLSearchParams(fields),
  });
  return {
    status: response.status,
    body: (await response.json()) as Record<string, unknown>,
    headers: response.headers,
  };
}

describe('OAuth provider: the RFC 9700 rules hold', () => {
  let t: TestApp;
  let issuer: string;
  beforeAll(async () => {
    ({ t, issuer } = await startProvider());
  });
  afterAll(() => t.close());

  async function confidential() {
    const registered = await registerClient(t);
    const config = await relyingParty(issuer, registered.client.client_id, registered.clientSecret);
    return {
      ...registered,
      config,
      basic: { id: registered.client.client_id, secret: registered.clientSecret! },
    };
  }

  it('an unknown client or an unregistered redirect URI is shown on a page, never redirected to', async () => {
    const { client } = await confidential();
    const query = (params: Record<string, string>) =>
      `/oauth2/authorize?${new URLSearchParams({
        response_type: 'code',
        scope: 'openid',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
        ...params,
      })}`;
    const cases: Record<string, string>[] = [
      { client_id: 'nobody', redirect_uri: WEB_CALLBACK },
      { client_id: client.client_id, redirect_uri: 'https://evil.example/callback' },
      { client_id: client.client_id, redirect_uri: `${WEB_CALLBACK}/more` },
      { client_id: client.client_id, redirect_uri: WEB_CALLBACK.toUpperCase() },
      { client_id: client.client_id },
    ];
    for (const params of cases) {
      const response = await t.client().get(query(params), 'form');
      expect(response.status, JSON.stringify(params)).toBe(400);
      expect(response.location).toBeUndefined();
      // Nothing on the page leads there (the language links repeat this page's own query).
      expect(response.text).not.toMatch(/(href|action)="https?:\/\/evil/);
    }
  });

  it('PKCE is required for every client, S256 only: missing or plain goes back as invalid_request', async () => {
    const { config } = await confidential();
    const cases: Record<string, string>[] = [
      { code_challenge: '', code_challenge_method: '' },
      { code_challenge_method: 'plain' },
    ];
    for (const parameters of cases) {
      const started = await startAuthorization(config, parameters);
      if (parameters.code_challenge === '') {
        started.url.searchParams.delete('code_challenge');
        started.url.searchParams.delete('code_challenge_method');
      }
      const stop = await follow(t.client(), issuer, started.url.href);
      expect(stop.external?.origin).toBe(new URL(WEB_CALLBACK).origin);
      expect(stop.external?.searchParams.get('error')).toBe('invalid_request');
      expect(stop.external?.searchParams.get('state')).toBe(started.state);
      expect(stop.external?.searchParams.get('iss')).toBe(issuer);
      expect(stop.external?.searchParams.get('code')).toBeNull();
    }
  });

  it('a wrong code_verifier and a wrong redirect_uri are invalid_grant', async () => {
    const user = await t.createUser();
    const { config, basic } = await confidential();
    const started = await startAuthorization(config);
    const { callback } = await authorizeAsNewBrowser(t, issuer, started, user);
    const code = callback.searchParams.get('code')!;
    const wrongVerifier = await tokenRequest(
      issuer,
      {
        grant_type: 'authorization_code',
        code,
        redirect_uri: WEB_CALLBACK,
        code_verifier: oidc.randomPKCECodeVerifier(),
      },
      basic,
    );
    expect(wrongVerifier.status).toBe(400);
    expect(wrongVerifier.body.error).toBe('invalid_grant');
    expect(wrongVerifier.headers.get('cache-control')).toBe('no-store');
    // The code was spent by the failed attempt: single use whatever the outcome.
    const again = await tokenRequest(
      issuer,
      { grant_type: 'authorization_code', code, redirect_uri: WEB_CALLBACK, code_verifier: started.verifier },
      basic,
    );
    expect(again.body.error).toBe('invalid_grant');

    const second = await startAuthorization(config);
    const { callback: callback2 } = await authorizeAsNewBrowser(t, issuer, second, user);
    const wrongRedirect = await tokenRequest(
      issuer,
      {
        grant_type: 'authorization_code',
        code: callback2.searchParams.get('code')!,
        redirect_uri: `${WEB_CALLBACK}?x=1`,
        code_verifier: second.verifier,
      },
      basic,
    );
    expect(wrongRedirect.body.error).toBe('invalid_grant');
  });

  it('a code used twice revokes every token issued from the first use', async () => {
    const user = await t.createUser();
    const { config, basic } = await confidential();
    const started = await startAuthorization(config);
    const { callback } = await authorizeAsNewBrowser(t, issuer, started, user);
    const tokens = await oidc.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: started.verifier,
      expectedState: started.state,
      expectedNonce: started.nonce,
    });
    expect((await oidc.fetchUserInfo(config, tokens.access_token, String(user.id))).sub).toBe(
      String(user.id),
    );
    const replay = await tokenRequest(
      issuer,
      {
        grant_type: 'authorization_code',
        code: callback.searchParams.get('code')!,
        redirect_uri: WEB_CALLBACK,
        code_verifier: started.verifier,
      },
      basic,
    );
    expect(replay.status).toBe(400);
    expect(replay.body.error).toBe('invalid_grant');
    await expect(oidc.fetchUserInfo(config, tokens.access_token, String(user.id))).rejects.toThrow();
    await expect(oidc.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    expect((await oidc.tokenIntrospection(config, tokens.access_token)).active).toBe(false);
  });

  it('a refresh token used twice revokes the whole grant', async () => {
    const user = await t.createUser();
    const { config } = await confidential();
    const started = await startAuthorization(config);
    const { callback } = await authorizeAsNewBrowser(t, issuer, started, user);
    const tokens = await oidc.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: started.verifier,
      expectedState: started.state,
      expectedNonce: started.nonce,
    });
    const rotated = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    await expect(oidc.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    // The legitimate holder's newer tokens end too.
    await expect(oidc.refreshTokenGrant(config, rotated.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    expect((await oidc.tokenIntrospection(config, rotated.access_token)).active).toBe(false);
  });

  it('no refresh token without offline_access', async () => {
    const user = await t.createUser();
    const { config } = await confidential();
    const started = await startAuthorization(config, { scope: 'openid email' });
    const { callback } = await authorizeAsNewBrowser(t, issuer, started, user);
    const tokens = await oidc.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: started.verifier,
      expectedState: started.state,
      expectedNonce: started.nonce,
    });
    expect(tokens.refresh_token).toBeUndefined();
  });

  it('a resource other than the API or the issuer is invalid_target; the API resource becomes the aud', async () => {
    const user = await t.createUser();
    const { config } = await confidential();
    const wrong = await startAuthorization(config, { resource: 'https://other.example/api' });
    const refused = await follow(t.client(), issuer, wrong.url.href);
    expect(refused.external?.searchParams.get('error')).toBe('invalid_target');

    const api = `${issuer}/api`;
    const started = await startAuthorization(config, { resource: api, scope: 'openid posts:read' });
    const { callback } = await authorizeAsNewBrowser(t, issuer, started, user);
    const tokens = await oidc.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: started.verifier,
      expectedState: started.state,
      expectedNonce: started.nonce,
    });
    const claims = JSON.parse(Buffer.from(tokens.access_token.split('.')[1]!, 'base64url').toString()) as {
      aud: string;
      scope: string;
    };
    expect(claims.aud).toBe(api);
    expect(claims.scope).toBe('openid posts:read');
    // A token for the API is not one for userinfo (another audience).
    await expect(oidc.fetchUserInfo(config, tokens.access_token, String(user.id))).rejects.toThrow();
  });

  it('scopes beyond what the client may ask for are invalid_scope', async () => {
    const { config } = await confidential();
    const started = await startAuthorization(config, { scope: 'openid posts:delete' });
    const stop = await follow(t.client(), issuer, started.url.href);
    expect(stop.external?.searchParams.get('error')).toBe('invalid_scope');
  });

  it('client authentication: a wrong secret, the wrong method, or a public client at client_credentials', async () => {
    const { client, basic } = await confidential();
    const wrong = await tokenRequest(
      issuer,
      { grant_type: 'client_credentials' },
      { ...basic, secret: 'nope' },
    );
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toBe('invalid_client');
    // A basic client cannot authenticate with client_secret_post, nor as a public client.
    const post = await tokenRequest(issuer, {
      grant_type: 'client_credentials',
      client_id: client.client_id,
      client_secret: basic.secret,
    });
    expect(post.body.error).toBe('invalid_client');
    const none = await tokenRequest(issuer, {
      grant_type: 'client_credentials',
      client_id: client.client_id,
    });
    expect(none.body.error).toBe('invalid_client');

    const publicClient = await registerClient(t, {
      token_endpoint_auth_method: 'none',
      application_type: 'native',
      redirect_uris: ['http://127.0.0.1/cb'],
    });
    const denied = await tokenRequest(issuer, {
      grant_type: 'client_credentials',
      client_id: publicClient.client.client_id,
    });
    expect(denied.body.error).toBe('unauthorized_client');
    // Introspection is for confidential clients only.
    const introspect = await fetch(`${issuer}/oauth2/introspect`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: 'x', client_id: publicClient.client.client_id }),
    });
    expect(introspect.status).toBe(401);
  });

  it('prompt=none without a signed-in user is login_required, sent back to the client', async () => {
    const { config } = await confidential();
    const started = await startAuthorization(config, { prompt: 'none' });
    const stop = await follow(t.client(), issuer, started.url.href);
    expect(stop.external?.searchParams.get('error')).toBe('login_required');
  });

  it('a denied consent goes back as access_denied; signing out ends a pending authorization', async () => {
    const user = await t.createUser();
    const { config } = await confidential();
    const started = await startAuthorization(config);
    const browser = t.client();
    await follow(browser, issuer, started.url.href);
    const login = await browser.post(
      '/login',
      { email: user.email, password: 'correct horse battery staple' },
      'form',
    );
    expect(login.location).toBe('/oauth2/authorize/continue');
    expect((await browser.get('/oauth2/authorize/continue', 'form')).text).toContain('Deny');
    const deny = await browser.post('/oauth2/authorize/consent', { decision: 'deny' }, 'form');
    expect(new URL(deny.location!).searchParams.get('error')).toBe('access_denied');

    // A new request, then sign-out: the next sign-in lands on the ordinary page, not on consent.
    const next = await startAuthorization(config);
    const fresh = t.client();
    await follow(fresh, issuer, next.url.href);
    const first = await fresh.post(
      '/login',
      { email: user.email, password: 'correct horse battery staple' },
      'form',
    );
    expect(first.location).toBe('/oauth2/authorize/continue');
    await fresh.post('/logout', {}, 'form');
    const later = await fresh.post(
      '/login',
      { email: user.email, password: 'correct horse battery staple' },
      'form',
    );
    expect(later.location).toBe('/');
    expect((await fresh.get('/oauth2/authorize/continue', 'form')).status).toBe(400);
  });
  it('prompt=login and an exceeded max_age send a signed-in user through the sign-in again', async () => {
    const user = await t.createUser();
    const { config } = await confidential();
    const first = await startAuthorization(config);
    const { browser } = await authorizeAsNewBrowser(t, issuer, first, user);
    // Signed in and consented: without prompt the code comes at once.
    const plain = await follow(browser, issuer, (await startAuthorization(config)).url.href);
    expect(plain.external?.searchParams.get('code')).toBeTruthy();
    const cases: Record<string, string>[] = [{ prompt: 'login' }, { max_age: '0' }];
    for (const parameters of cases) {
      t.clock.advance(2);
      const started = await startAuthorization(config, parameters);
      const stop = await follow(browser, issuer, started.url.href);
      expect(stop.path, JSON.stringify(parameters)).toBe('/login');
      const again = await signInOnForm(browser, issuer, user);
      // The fresh sign-in satisfies both (max_age=0: the test clock stands still).
      expect(again.external?.searchParams.get('code')).toBeTruthy();
    }
  });

  it('a pending authorization expires, and only the user it was shown to can answer it', async () => {
    const user = await t.createUser();
    const other = await t.createUser();
    const { config } = await confidential();
    const browser = t.client();
    await follow(browser, issuer, (await startAuthorization(config)).url.href);
    const shown = await signInOnForm(browser, issuer, user);
    expect(shown.response?.text).toContain('Deny');
    // Another account signs in on the same browser: the consent shown to the first is not theirs.
    await browser.post('/login', { email: other.email, password: 'correct horse battery staple' }, 'form');
    const stolen = await browser.post('/oauth2/authorize/consent', { decision: 'allow' }, 'form');
    expect(stolen.status).toBe(400);
    expect(stolen.location).toBeUndefined();

    const late = t.client();
    await follow(late, issuer, (await startAuthorization(config)).url.href);
    t.clock.advance(601);
    const signedIn = await signInOnForm(late, issuer, user);
    expect(signedIn.path).toBe('/');
    expect((await late.get('/oauth2/authorize/continue', 'form')).status).toBe(400);
  });
  it('a code lives 60 seconds', async () => {
    const user = await t.createUser();
    const { config, basic } = await confidential();
    const started = await startAuthorization(config);
    const { callback } = await authorizeAsNewBrowser(t, issuer, started, user);
    t.clock.advance(61);
    const late = await tokenRequest(
      issuer,
      {
        grant_type: 'authorization_code',
        code: callback.searchParams.get('code')!,
        redirect_uri: WEB_CALLBACK,
        code_verifier: started.verifier,
      },
      basic,
    );
    expect(late.body.error).toBe('invalid_grant');
  });

  it('end-session by form post, and a hint of another user only asks', async () => {
    const user = await t.createUser();
    const { client, config } = await confidential();
    const started = await startAuthorization(config);
    const { browser, callback } = await authorizeAsNewBrowser(t, issuer, started, user);
    const tokens = await oidc.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: started.verifier,
      expectedState: started.state,
      expectedNonce: started.nonce,
    });
    // Another user's browser with this hint: asked to confirm, still signed in.
    const other = await t.signIn(await t.createUser());
    const asked = await other.post(
      '/oauth2/end-session',
      { id_token_hint: tokens.id_token!, client_id: client.client_id },
      'form',
      { csrf: false },
    );
    expect(asked.status).toBe(200);
    expect(asked.text).toContain('Sign out?');
    expect((await other.get('/me')).status).toBe(200);
    // The user's own browser, posting from the client's site (no CSRF token): signed out.
    const out = await browser.post(
      '/oauth2/end-session',
      { id_token_hint: tokens.id_token!, post_logout_redirect_uri: 'https://rp.example.com/signed-out' },
      'form',
      { csrf: false },
    );
    expect(out.location).toBe('https://rp.example.com/signed-out');
    expect((await browser.get('/me')).status).toBe(401);
  });
});
