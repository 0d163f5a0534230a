import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../../support/app.ts';
import {
  follow,
  registerClient,
  relyingParty,
  signInOnForm,
  startAuthorization,
  startProvider,
  answerConsent,
} from './flow-fixture.ts';

/** The `value` of the sign-in form's identifier input, entities decoded as a browser would. */
function identifierValue(page: string): string {
  const input = /<input\s+id="field-email"[^>]*>/.exec(page)?.[0];
  expect(input, 'the sign-in form has its identifier input').toBeDefined();
  const value = /\svalue="([^"]*)"/.exec(input!)?.[1] ?? '';
  return value
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}

describe('OAuth provider: the pages the authorization shows', () => {
  let t: TestApp;
  let issuer: string;
  let config: oidc.Configuration;
  beforeAll(async () => {
    ({ t, issuer } = await startProvider());
    const { client, clientSecret } = await registerClient(t);
    config = await relyingParty(issuer, client.client_id, clientSecret);
  });
  afterAll(() => t.close());

  async function loginPageFor(hint: string) {
    const started = await startAuthorization(config, { login_hint: hint });
    const browser = t.client();
    const stop = await follow(browser, issuer, started.url.href);
    expect(stop.path).toBe('/login');
    return { browser, started, page: stop.response!.text };
  }

  it('the sign-in page reached through /oauth2/authorize prefills the identifier with login_hint', async () => {
    const { page } = await loginPageFor('alice@example.com');
    expect(identifierValue(page)).toBe('alice@example.com');
  });

  it('a hostile login_hint is escaped: only ever the input value, never markup', async () => {
    const hostile = `"><script>alert(1)</script><input value='`;
    const { page } = await loginPageFor(hostile);
    expect(page).not.toContain('<script>alert(1)');
    expect(page).not.toContain(`"><script>`);
    expect(identifierValue(page)).toBe(hostile);
  });

  it('an over-long or control-character hint is dropped; the URL of /login itself is never reflected', async () => {
    expect(identifierValue((await loginPageFor('a'.repeat(192))).page)).toBe('');
    expect(identifierValue((await loginPageFor('bob@example.com\n')).page)).toBe('bob@example.com');
    expect(identifierValue((await loginPageFor('bob\u0007@example.com')).page)).toBe('');
    const direct = await t.client().get('/login?login_hint=mallory%40example.com', 'form');
    expect(direct.status).toBe(200);
    expect(identifierValue(direct.text)).toBe('');
    // Without a waiting authorization (another browser), nothing is offered.
    await loginPageFor('carol@example.com');
    expect(identifierValue((await t.client().get('/login', 'form')).text)).toBe('');
  });

  it('the hint is not an identity: whoever signs in is who the ID token names', async () => {
    const hinted = await t.createUser();
    const user = await t.createUser();
    const { browser, started, page } = await loginPageFor(hinted.email);
    expect(identifierValue(page)).toBe(hinted.email);
    const signedIn = await signInOnForm(browser, issuer, user);
    expect(signedIn.path).toBe('/oauth2/authorize/continue');
    const done = await answerConsent(browser, issuer);
    const tokens = await oidc.authorizationCodeGrant(config, done.external!, {
      pkceCodeVerifier: started.verifier,
      expectedState: started.state,
      expectedNonce: started.nonce,
    });
    expect(tokens.claims()!.sub).toBe(String(user.id));
  });

  it('no page of the authorization may be framed (clickjacking): X-Frame-Options DENY and CSP frame-ancestors none', async () => {
    const user = await t.createUser();
    const { browser } = await loginPageFor(user.email);
    const pages = [
      // The sign-in page the authorization sends to, and the consent page after it.
      await browser.get('/login', 'form'),
      (await signInOnForm(browser, issuer, user)).response!,
      await browser.get('/oauth2/authorize/continue', 'form'),
      // The authorize endpoint's own page (an unknown client is shown, never redirected to).
      await t.client().get('/oauth2/authorize?client_id=unknown&response_type=code', 'form'),
    ];
    expect(pages[1]!.text).toContain('name="decision"');
    expect(pages[3]!.status).toBe(400);
    for (const page of pages) {
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      expect(page.headers['x-frame-options']).toBe('DENY');
      expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    }
  });

  it('a refused sign-in shows what the user typed, not the hint', async () => {
    const { browser } = await loginPageFor('hinted@example.com');
    const refused = await browser.post(
      '/login',
      { email: 'typed@example.com', password: 'wrong-password-1' },
      'form',
    );
    expect(refused.status).toBe(401);
    expect(identifierValue(refused.text)).toBe('typed@example.com');
  });
});
