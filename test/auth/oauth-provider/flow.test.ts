import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../../support/app.ts';
import { enrollTotp, nextStep, totpCode } from '../../support/factors.ts';
import {
  LOGOUT_CALLBACK,
  WEB_CALLBACK,
  answerConsent,
  authorizeAsNewBrowser,
  follow,
  jwtClaims,
  jwtHeader,
  registerClient,
  relyingParty,
  signInOnForm,
  startAuthorization,
  startProvider,
  submit,
} from './flow-fixture.ts';

describe('OAuth provider flow with openid-client as the relying party', () => {
  let t: TestApp;
  let issuer: string;
  beforeAll(async () => {
    ({ t, issuer } = await startProvider());
  });
  afterAll(() => t.close());

  it('publishes metadata that matches what the endpoints do (both documents)', async () => {
    for (const path of ['/.well-known/openid-configuration', '/.well-known/oauth-authorization-server']) {
      const response = await fetch(`${issuer}${path}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      const metadata = (await response.json()) as Record<string, unknown>;
      expect(metadata.issuer).toBe(issuer);
      expect(metadata.response_types_supported).toEqual(['code']);
      expect(metadata.code_challenge_methods_supported).toEqual(['S256']);
      expect(metadata.grant_types_supported).toEqual([
        'authorization_code',
        'refresh_token',
        'client_credentials',
      ]);
      expect(metadata.id_token_signing_alg_values_supported).toEqual(['RS256', 'EdDSA']);
      expect(metadata.token_endpoint_auth_methods_supported).toEqual([
        'client_secret_basic',
        'client_secret_post',
        'none',
      ]);
      expect(metadata.registration_endpoint).toBe(`${issuer}/oauth2/register`);
      expect(metadata.authorization_response_iss_parameter_supported).toBe(true);
      expect(metadata.end_session_endpoint).toBe(`${issuer}/oauth2/end-session`);
      expect(metadata.scopes_supported).toEqual(expect.arrayContaining(['openid', 'offline_access']));
    }
  });

  it('code + PKCE for a confidential client: ID token, userinfo, rotating refresh, introspection, revocation', async () => {
    const user = await t.createUser({ emailVerified: true });
    const { client, clientSecret } = await registerClient(t);
    const config = await relyingParty(issuer, client.client_id, clientSecret);
    const started = await startAuthorization(config);
    const { callback } = await authorizeAsNewBrowser(t, issuer, started, user);
    expect(callback.searchParams.get('iss')).toBe(issuer);
    expect(callback.searchParams.get('state')).toBe(started.state);

    const tokens = await oidc.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: started.verifier,
      expectedState: started.state,
      expectedNonce: started.nonce,
      idTokenExpected: true,
    });
    const claims = tokens.claims()!;
    expect(claims.sub).toBe(String(user.id));
    expect(claims.aud).toBe(client.client_id);
    expect(claims.nonce).toBe(started.nonce);
    expect(claims.amr).toEqual(['pwd']);
    expect(typeof claims.auth_time).toBe('number');
    expect(jwtHeader(tokens.id_token!).alg).toBe('RS256');
    expect(jwtHeader(tokens.access_token).typ).toBe('at+jwt');
    expect(jwtClaims(tokens.access_token).aud).toBe(issuer);
    expect(tokens.refresh_token).toBeTruthy();

    const info = await oidc.fetchUserInfo(config, tokens.access_token, String(user.id));
    expect(info).toMatchObject({ sub: String(user.id), email: user.email, email_verified: true });
    expect(info.preferred_username).toBe(user.username);

    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.refresh_token).toBeTruthy();
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);

    const active = await oidc.tokenIntrospection(config, refreshed.access_token);
    expect(active).toMatchObject({ active: true, client_id: client.client_id, sub: String(user.id) });

    await oidc.tokenRevocation(config, refreshed.refresh_token!);
    const after = await oidc.tokenIntrospection(config, refreshed.access_token);
    expect(after.active).toBe(false);
    await expect(oidc.refreshTokenGrant(config, refreshed.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
  });

  it('a public native client (none, loopback any port, EdDSA); consent is remembered the second time', async () => {
    const user = await t.createUser();
    const { client, clientSecret } = await registerClient(t, {
      application_type: 'native',
      token_endpoint_auth_method: 'none',
      redirect_uris: ['http://127.0.0.1/callback'],
      id_token_signed_response_alg: 'EdDSA',
      scope: ['openid', 'email'],
    });
    expect(clientSecret).toBeNull();
    const config = await relyingParty(issuer, client.client_id, null, 'none', {
      id_token_signed_response_alg: 'EdDSA',
    });
    const redirect = 'http://127.0.0.1:53117/callback';
    const started = await startAuthorization(config, { redirect_uri: redirect, scope: 'openid email' });
    const browser = t.client();
    expect((await follow(browser, issuer, started.url.href)).path).toBe('/login');
    const consentPage = await signInOnForm(browser, issuer, user);
    expect(consentPage.response?.text).toContain('Relying Party');
    const done = await answerConsent(browser, issuer);
    expect(done.external?.origin).toBe('http://127.0.0.1:53117');
    const tokens = await oidc.authorizationCodeGrant(config, done.external!, {
      pkceCodeVerifier: started.verifier,
      expectedState: started.state,
      expectedNonce: started.nonce,
    });
    expect(jwtHeader(tokens.id_token!).alg).toBe('EdDSA');
    expect(tokens.refresh_token).toBeUndefined();

    // Same browser, same scopes: straight back with a code, no consent page.
    const again = await startAuthorization(config, { redirect_uri: redirect, scope: 'openid email' });
    const second = await follow(browser, issuer, again.url.href);
    expect(second.external?.searchParams.get('code')).toBeTruthy();
    const tokens2 = await oidc.authorizationCodeGrant(config, second.external!, {
      pkceCodeVerifier: again.verifier,
      expectedState: again.state,
      expectedNonce: again.nonce,
    });
    expect(tokens2.claims()!.sub).toBe(String(user.id));

    // prompt=consent asks again.
    const asked = await startAuthorization(config, {
      redirect_uri: redirect,
      scope: 'openid email',
      prompt: 'consent',
    });
    const page = await follow(browser, issuer, asked.url.href);
    expect(page.path).toMatch(/^\/oauth2\/authorize/);
    expect(page.response?.text).toContain('Allow');
    // Never framed (clickjacking a consent): every page's CSP says so.
    expect(String(page.response?.headers['content-security-policy'])).toContain("frame-ancestors 'none'");
  });

  it('client_credentials for a confidential client (client_secret_post): sub is the client, its resource scopes', async () => {
    const { client, clientSecret } = await registerClient(t, {
      token_endpoint_auth_method: 'client_secret_post',
    });
    const config = await relyingParty(issuer, client.client_id, clientSecret, 'post');
    const tokens = await oidc.clientCredentialsGrant(config);
    const claims = jwtClaims(tokens.access_token);
    expect(claims.sub).toBe(client.client_id);
    expect(claims.scope).toBe('posts:read');
    expect(tokens.refresh_token).toBeUndefined();
    expect(tokens.id_token).toBeUndefined();
    await expect(oidc.clientCredentialsGrant(config, { scope: 'openid' })).rejects.toMatchObject({
      error: 'invalid_scope',
    });
  });

  it('RP-initiated logout: id_token_hint and a registered post_logout_redirect_uri sign the user out', async () => {
    const user = await t.createUser();
    const { client, clientSecret } = await registerClient(t);
    const config = await relyingParty(issuer, client.client_id, clientSecret);
    const started = await startAuthorization(config);
    const { browser, callback } = await authorizeAsNewBrowser(t, issuer, started, user);
    const tokens = await oidc.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: started.verifier,
      expectedState: started.state,
      expectedNonce: started.nonce,
    });
    expect((await browser.get('/me')).status).toBe(200);
    const logout = oidc.buildEndSessionUrl(config, {
      id_token_hint: tokens.id_token!,
      post_logout_redirect_uri: LOGOUT_CALLBACK,
      state: 'bye',
    });
    const stop = await follow(browser, issuer, logout.href);
    expect(stop.external?.href).toBe(`${LOGOUT_CALLBACK}?state=bye`);
    expect((await browser.get('/me')).status).toBe(401);

    // An unregistered post-logout address is shown on a page, never redirected to.
    const evil = oidc.buildEndSessionUrl(config, {
      id_token_hint: tokens.id_token!,
      post_logout_redirect_uri: 'https://evil.example/',
    });
    const refused = await follow(t.client(), issuer, evil.href);
    expect(refused.external).toBeUndefined();
    expect(refused.response?.status).toBe(400);
  });

  it('a user with TOTP passes the second factor inside the flow; amr says pwd, otp, mfa', async () => {
    const user = await t.createUser();
    const setup = await t.signIn(user);
    const { secret } = await enrollTotp(t, setup);
    const { client, clientSecret } = await registerClient(t);
    const config = await relyingParty(issuer, client.client_id, clientSecret);
    const started = await startAuthorization(config);
    const browser = t.client();
    expect((await follow(browser, issuer, started.url.href)).path).toBe('/login');
    const step = await signInOnForm(browser, issuer, user);
    expect(step.path).toBe('/action/show');
    nextStep(t);
    const consentPage = await submit(browser, issuer, '/action/handle', {
      factor: 'totp',
      proof: totpCode(t, secret),
    });
    expect(consentPage.path, consentPage.response?.text).toBe('/oauth2/authorize/continue');
    const done = await answerConsent(browser, issuer);
    const tokens = await oidc.authorizationCodeGrant(config, done.external!, {
      pkceCodeVerifier: started.verifier,
      expectedState: started.state,
      expectedNonce: started.nonce,
    });
    expect(tokens.claims()!.amr).toEqual(['pwd', 'otp', 'mfa']);
  });

  it("the consent page marks a self-registered client as not verified and names its redirect host, in the reader's language", async () => {
    const user = await t.createUser();
    const { client, clientSecret } = await registerClient(t, {
      registration: 'dynamic',
      client_name: 'Your Bank',
      redirect_uris: ['https://phish.example.net/cb'],
    });
    const config = await relyingParty(issuer, client.client_id, clientSecret);
    const started = await startAuthorization(config, { redirect_uri: 'https://phish.example.net/cb' });
    const browser = t.client();
    await follow(browser, issuer, started.url.href);
    const page = await signInOnForm(browser, issuer, user);
    expect(page.response?.text).toContain('not verified');
    expect(page.response?.text).toContain('phish.example.net');
    const german = await browser.get('/oauth2/authorize/continue', 'form', {
      headers: { 'accept-language': 'de' },
    });
    expect(german.text).toContain('nicht verifiziert');
    expect(german.text).toContain('phish.example.net');
  });
});

export { WEB_CALLBACK };
