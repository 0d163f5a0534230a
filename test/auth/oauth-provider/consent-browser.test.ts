// Dialect-independent: pages in a browser; `npm test` runs it with the first database only.
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { chromiumAvailable } from '../../support/services.ts';
import { startBrowserApp, type BrowserApp } from '../../support/browser.ts';
import { TEST_PASSWORD, type TestApp } from '../../support/app.ts';
import { defaultPlugins } from '../../../src/auth/index.ts';
import { oauthProvider } from '../../../src/auth/oauth-provider/plugin.ts';
import { WEB_CALLBACK, registerClient, relyingParty, startAuthorization } from './flow-fixture.ts';

/**
 * Browsers check every redirect after a form post against the form page's CSP `form-action`: the
 * sign-in and consent forms of a waiting authorization must be allowed to end at the client.
 */
describe.skipIf(!chromiumAvailable())('OAuth provider: forms that end at the client, in Chromium', () => {
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

  /** The browser's request to the client's callback (on no network here: the request is what counts). */
  function callbackRequest(page: Page) {
    return page.waitForRequest((candidate) => candidate.url().startsWith(WEB_CALLBACK), { timeout: 15_000 });
  }

  it('password form, then the consent form: the browser reaches the client, and the code is good', async () => {
    const user = await t.createUser();
    const page = await browser.newPage();
    const violations: string[] = [];
    page.on('console', (message) => {
      if (/form-action/.test(message.text())) violations.push(message.text());
    });
    const { client, clientSecret } = await registerClient(t);
    const config = await relyingParty(base, client.client_id, clientSecret);
    const started = await startAuthorization(config);

    await page.goto(started.url.href);
    await page.waitForURL(`${base}/login`);
    const csp = await page.evaluate(async () =>
      (await fetch(location.href)).headers.get('content-security-policy'),
    );
    expect(csp).toContain(`form-action 'self' ${new URL(WEB_CALLBACK).origin}`);
    await page.fill('#field-email', user.email);
    await page.fill('#field-password', TEST_PASSWORD);
    await page.click('form[action="/login"] button[type=submit]');
    await page.waitForSelector('button[name=decision][value=allow]');

    const [request] = await Promise.all([
      callbackRequest(page),
      page.click('button[name=decision][value=allow]'),
    ]);
    expect(violations).toEqual([]);
    const tokens = await oidc.authorizationCodeGrant(config, new URL(request.url()), {
      pkceCodeVerifier: started.verifier,
      expectedState: started.state,
      expectedNonce: started.nonce,
      idTokenExpected: true,
    });
    expect(tokens.claims()!.sub).toBe(String(user.id));

    // Consent is remembered now: the next authorization ends with the password form itself.
    await page.context().clearCookies();
    const again = await startAuthorization(config);
    await page.goto(again.url.href);
    await page.waitForURL(`${base}/login`);
    await page.fill('#field-email', user.email);
    await page.fill('#field-password', TEST_PASSWORD);
    const [second] = await Promise.all([
      callbackRequest(page),
      page.click('form[action="/login"] button[type=submit]'),
    ]);
    expect(new URL(second.url()).searchParams.get('code')).toBeTruthy();
    expect(violations).toEqual([]);
    await page.close();
  }, 60_000);

  it('a browser without a waiting authorization keeps form-action to this server alone', async () => {
    const page = await browser.newPage();
    const answer = await page.goto(`${base}/login`);
    expect(answer?.headers()['content-security-policy']).toContain("form-action 'self';");
    await page.close();
  });
});
