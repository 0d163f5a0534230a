// Dialect-independent: pages in a browser; `npm test` runs it with the first database only.
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext } from 'playwright-core';
import { chromiumAvailable } from '../../support/services.ts';
import {
  addVirtualAuthenticator,
  signInOnPage,
  startBrowserApp,
  type BrowserApp,
} from '../../support/browser.ts';
import { TEST_PASSWORD, type TestApp } from '../../support/app.ts';
import { defaultPlugins } from '../../../src/auth/index.ts';
import { oauthProvider } from '../../../src/auth/oauth-provider/plugin.ts';
import { rememberConsent } from '../../../src/auth/oauth-provider/token-store.ts';
import { WEB_CALLBACK, registerClient, relyingParty, startAuthorization } from './flow-fixture.ts';

/** What `startAuthorization` asks for. */
const SCOPE = ['openid', 'profile', 'email', 'offline_access'];

describe.skipIf(!chromiumAvailable())('OAuth provider: a passkey sign-in in Chromium gives amr hwk', () => {
  let t: TestApp;
  let base: string;
  let suite: BrowserApp;
  let browser: BrowserContext;

  beforeAll(async () => {
    suite = await startBrowserApp({ plugins: [...defaultPlugins(), oauthProvider()] });
    ({ t, base, browser } = suite);
  }, 60_000);

  afterAll(async () => {
    await suite?.close();
  });

  it('the sign-in page the authorization sent the browser to: "Sign in with a passkey", back to the client; amr is hwk', async () => {
    const user = await t.createUser();
    const page = await browser.newPage();
    // The button path, not autofill (test/e2e/account-pages.test.ts covers autofill).
    await addVirtualAuthenticator(page, { autofill: false });

    // Enroll a passkey on the settings page (sudo first), then sign out.
    await signInOnPage(page, base, { email: user.email, password: TEST_PASSWORD }, '/');
    await page.goto(`${base}/sudo?next=%2Ftwo-factor`);
    await page.fill('#sudo-password input[name=proof]', TEST_PASSWORD);
    await page.click('#sudo-password button[type=submit]');
    await page.waitForURL(`${base}/two-factor`);
    await page.fill('#passkey-name', 'Laptop');
    await page.click('#passkey-register');
    await page.waitForSelector('#passkey-result .recovery-code');
    await page.click('nav form[action="/logout"] button');
    await page.waitForURL(`${base}/login`);

    const { client, clientSecret } = await registerClient(t);
    const config = await relyingParty(base, client.client_id, clientSecret);
    const started = await startAuthorization(config);
    // Consent given before: the script's navigation to the waiting authorization goes straight
    // back to the client (a consent form's post is another test's matter).
    await rememberConsent(t.services.db, user.id, client.client_id, SCOPE, t.clock.now());
    await page.goto(started.url.href);
    await page.waitForURL(`${base}/login`);
    // The client's callback is on no network here: the browser's request to it is what counts.
    const [request] = await Promise.all([
      page.waitForRequest((candidate) => candidate.url().startsWith(WEB_CALLBACK)),
      page.click('#passkey-login'),
    ]);
    const callback = new URL(request.url());

    const tokens = await oidc.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: started.verifier,
      expectedState: started.state,
      expectedNonce: started.nonce,
      idTokenExpected: true,
    });
    const claims = tokens.claims()!;
    expect(claims.sub).toBe(String(user.id));
    expect(claims.amr).toEqual(['hwk']);
  }, 60_000);
});
