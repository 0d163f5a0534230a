// Dialect-independent: pages in a browser; `npm test` runs it with the first database only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { chromiumAvailable } from '../support/services.ts';
import { checkPageAtWidths } from '../support/page-check.ts';
import {
  addVirtualAuthenticator,
  signInOnPage,
  startBrowserApp,
  type BrowserApp,
} from '../support/browser.ts';
import { TEST_PASSWORD, type TestApp } from '../support/app.ts';

/** Screenshots are for a person to look at; they never go into the repository. */
const SHOTS = process.env.CITADEL_SHOTS_DIR ?? '/tmp/shots-11';

async function json(page: Page, path: string) {
  return page.evaluate(async (url) => {
    const response = await fetch(url, { headers: { accept: 'application/json' } });
    return { status: response.status, body: await response.json() };
  }, path);
}

const checkPage = (page: Page, base: string, path: string, name: string) =>
  checkPageAtWidths(page, `${base}${path}`, { name, shots: SHOTS });

describe.skipIf(!chromiumAvailable())('account pages in Chromium', () => {
  let t: TestApp;
  let base: string;
  let suite: BrowserApp;
  let browser: BrowserContext;

  beforeAll(async () => {
    suite = await startBrowserApp({}, SHOTS);
    ({ t, base, browser } = suite);
  }, 60_000);

  afterAll(async () => {
    await suite?.close();
  });

  it('every public page fits 1280 px and 375 px with no serious or critical axe violation', async () => {
    const page = await browser.newPage();
    for (const [path, name] of [
      ['/', 'home'],
      ['/login', 'login'],
      ['/register', 'register'],
      ['/forgot-password', 'forgot-password'],
      ['/magic-link', 'magic-link'],
      ['/magic-link/verify/used-or-unknown', 'magic-link-dead'],
    ] as const)
      await checkPage(page, base, path, name);

    // An error state: the form again with its messages.
    await page.setViewportSize({ width: 375, height: 900 });
    await page.goto(`${base}/register`);
    await page.fill('#field-username', 'a');
    await page.fill('#field-email', 'nobody@example.com');
    await page.fill('#field-password', 'short');
    await page.fill('#field-password_confirm', 'other');
    await page.click('form[action="/register"] button[type=submit]');
    await page.waitForSelector('#field-username-error');
    // Focus moved to the first field with an error.
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('field-username');
    await page.screenshot({ path: `${SHOTS}/register-errors-375.png`, fullPage: true });
    await page.close();
  }, 300_000);

  it('every signed-in page fits 1280 px and 375 px with no serious or critical axe violation', async () => {
    const page = await browser.newPage();

    const user = await t.createUser({ username: 'Page Tester' });
    await page.setViewportSize({ width: 1280, height: 900 });
    await signInOnPage(page, base, { email: user.email, password: TEST_PASSWORD }, '/');
    // A second session to list, and a token with long abilities for the token table.
    await t.signIn(user);
    await page.goto(`${base}/sudo?next=%2Ftokens`);
    await checkPage(page, base, '/sudo?next=%2Ftokens', 'sudo');
    await page.fill('#sudo-password input[name=proof]', TEST_PASSWORD);
    await page.click('#sudo-password button[type=submit]');
    await page.waitForURL(`${base}/tokens`);
    await page.fill('#field-name', 'Deploy bot for the production cluster');
    await page.fill('#field-abilities', 'posts:read posts:create comments:read tokens:read sessions:read');
    await page.click('form[action="/tokens/create"] button[type=submit]');
    await page.waitForSelector('#new-token-value');
    await page.screenshot({ path: `${SHOTS}/tokens-created-1280.png`, fullPage: true });

    for (const [path, name] of [
      ['/', 'home-signed-in'],
      ['/account', 'account'],
      ['/sessions', 'sessions'],
      ['/account/events', 'events'],
      ['/two-factor', 'two-factor'],
      ['/two-factor?setup=totp', 'two-factor-setup'],
      ['/tokens', 'tokens'],
      ['/set-password', 'set-password'],
      ['/account/delete', 'delete-account'],
      ['/sudo', 'sudo-active'],
    ] as const)
      await checkPage(page, base, path, name);
    await page.close();
  }, 300_000);

  it('a destructive button asks first: dismissing the question changes nothing', async () => {
    const user = await t.createUser();
    const page = await browser.newPage();
    await signInOnPage(page, base, { email: user.email, password: TEST_PASSWORD }, '/');
    await t.signIn(user);
    await page.goto(`${base}/sessions`);
    page.once('dialog', (dialog) => void dialog.dismiss());
    await page.click('form[action="/sessions/revoke-others"] button');
    await page.waitForTimeout(300);
    expect((await json(page, '/sessions')).body.data.sessions).toHaveLength(2);
    page.once('dialog', (dialog) => void dialog.accept());
    await page.click('form[action="/sessions/revoke-others"] button');
    await page.waitForURL(`${base}/sessions`);
    expect((await json(page, '/sessions')).body.data.sessions).toHaveLength(1);
    await page.close();
  }, 60_000);

  it('"Sign in with a passkey": no password typed, the passkey is both factors', async () => {
    const user = await t.createUser();
    const page = await browser.newPage();
    await addVirtualAuthenticator(page);
    await signInOnPage(page, base, { email: user.email, password: TEST_PASSWORD }, '/');
    await page.goto(`${base}/sudo?next=%2Ftwo-factor`);
    await page.fill('#sudo-password input[name=proof]', TEST_PASSWORD);
    await page.click('#sudo-password button[type=submit]');
    await page.waitForURL(`${base}/two-factor`);
    await page.fill('#passkey-name', 'Laptop');
    await page.click('#passkey-register');
    await page.waitForSelector('#passkey-result .recovery-code');

    // Signed out, the sign-in page offers the passkey in the username autofill (conditional
    // mediation): Chromium's virtual authenticator answers it at once, so the browser signs in alone.
    await page.click('nav form[action="/logout"] button');
    await page.waitForURL(`${base}/`);
    expect((await json(page, '/me')).body.user.id).toBe(user.id);

    // The button, in a browser without autofill support: a modal passkey prompt.
    await page.addInitScript(() => {
      Object.defineProperty(window.PublicKeyCredential, 'isConditionalMediationAvailable', {
        value: () => Promise.resolve(false),
      });
    });
    await page.click('nav form[action="/logout"] button');
    await page.waitForURL(`${base}/login`);
    expect(await page.getAttribute('#field-email', 'autocomplete')).toBe('username webauthn');
    expect((await json(page, '/me')).status).toBe(401);
    await page.click('#passkey-login');
    await page.waitForURL(`${base}/`);
    expect((await json(page, '/me')).body.user.id).toBe(user.id);
    const events = await t.services.db
      .selectFrom('security_events')
      .select('detail')
      .where('user_id', '=', user.id)
      .where('type', '=', 'sign_in')
      .execute();
    // Password, autofill passkey, button passkey.
    expect(events).toHaveLength(3);
    await page.close();
  }, 90_000);
});
