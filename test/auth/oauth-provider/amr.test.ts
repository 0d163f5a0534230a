import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../../support/app.ts';
import type { TestClient } from '../../support/client.ts';
import { linkIn, type CapturedMail } from '../../support/mail.ts';
import { sudoWithPassword } from '../../support/factors.ts';
import { SoftAuthenticator } from '../../support/soft-authenticator.ts';
import {
  answerConsent,
  follow,
  registerClient,
  relyingParty,
  startAuthorization,
  startProvider,
  type Started,
  type Stop,
} from './flow-fixture.ts';

/**
 * The ID token's `amr` (RFC 8176) names how the user signed in on Citadel's own sign-in, whatever
 * way they took from the sign-in page the authorization sent them to.
 */
describe('OAuth provider: amr of each sign-in method, read by openid-client', () => {
  let t: TestApp;
  let issuer: string;
  let config: oidc.Configuration;
  beforeAll(async () => {
    ({ t, issuer } = await startProvider());
    const { client, clientSecret } = await registerClient(t);
    config = await relyingParty(issuer, client.client_id, clientSecret);
  });
  afterAll(() => t.close());

  /** A new browser at the sign-in page the authorization sends it to. */
  async function atSignIn(): Promise<{ browser: TestClient; started: Started }> {
    const started = await startAuthorization(config);
    const browser = t.client();
    expect((await follow(browser, issuer, started.url.href)).path).toBe('/login');
    return { browser, started };
  }

  /** From the consent page the sign-in led to, through the code exchange: the ID token's claims. */
  async function claimsAfter(browser: TestClient, started: Started, signedIn: Stop) {
    expect(signedIn.path, signedIn.response?.text).toBe('/oauth2/authorize/continue');
    const done = await answerConsent(browser, issuer);
    const tokens = await oidc.authorizationCodeGrant(config, done.external!, {
      pkceCodeVerifier: started.verifier,
      expectedState: started.state,
      expectedNonce: started.nonce,
      idTokenExpected: true,
    });
    return tokens.claims()!;
  }

  it('a magic-link sign-in: amr is email', async () => {
    const user = await t.createUser();
    const { browser, started } = await atSignIn();
    const prefix = `${issuer}/magic-link/verify/`;
    const match = (mail: CapturedMail) => mail.text.includes(prefix);
    const sent = await browser.post('/magic-link', { email: user.email }, 'form');
    expect(sent.status).toBe(303);
    const mail = await t.mail.waitFor(user.email, { count: 1, match });
    // The link opened in the browser that asked for it.
    const signedIn = await follow(browser, issuer, linkIn(mail, prefix));
    const claims = await claimsAfter(browser, started, signedIn);
    expect(claims.sub).toBe(String(user.id));
    expect(claims.amr).toEqual(['email']);
  });

  it('a passkey sign-in (user verified, no password): amr is hwk', async () => {
    const user = await t.createUser();
    const key = new SoftAuthenticator(issuer);
    const owner = await t.signIn(user);
    await sudoWithPassword(owner);
    const start = await owner.post('/two-factor/enroll/start', { factor: 'passkey' });
    expect(start.status, start.text).toBe(200);
    const enrolled = await owner.post('/two-factor/enroll/confirm', {
      factor: 'passkey',
      proof: key.register(start.body.data.options),
    });
    expect(enrolled.status, enrolled.text).toBe(200);

    const { browser, started } = await atSignIn();
    // What the sign-in page's passkey script does: options, the assertion, then its redirect_to.
    const options = await browser.post('/passkey/login/options', {});
    expect(options.status, options.text).toBe(200);
    const login = await browser.post('/passkey/login', {
      response: key.assert(options.body.data.options),
    });
    expect(login.status, login.text).toBe(200);
    const signedIn = await follow(browser, issuer, login.body.redirect_to as string);
    const claims = await claimsAfter(browser, started, signedIn);
    expect(claims.sub).toBe(String(user.id));
    expect(claims.amr).toEqual(['hwk']);
  });
});
