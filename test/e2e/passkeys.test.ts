// Dialect-independent: pages in a browser; `npm test` runs it with the first database only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable } from '../support/services.ts';
import {
  addVirtualAuthenticator,
  signInOnPage,
  startBrowserApp,
  type BrowserApp,
} from '../support/browser.ts';
import type { BrowserContext, Page } from 'playwright-core';
import { TEST_PASSWORD, type TestApp } from '../support/app.ts';

/** The page's session as the server sees it, read through the JSON API with the page's cookies. */
async function json(page: Page, path: string) {
  return page.evaluate(async (url) => {
    const response = await fetch(url, { headers: { accept: 'application/json' } });
    return { status: response.status, body: await response.json() };
  }, path);
}

describe.skipIf(!chromiumAvailable())('passkeys in Chromium with a virtual authenticator', () => {
  let t: TestApp;
  let base: string;
  let suite: BrowserApp;
  let browser: BrowserContext;

  beforeAll(async () => {
    suite = await startBrowserApp({});
    ({ t, base, browser } = suite);
  }, 60_000);

  afterAll(async () => {
    await suite?.close();
  });

  it('enroll on the settings page, sign in with it as second factor, enter sudo with it, remove it', async () => {
    const user = await t.createUser();
    const page = await browser.newPage();
    // This test follows the password-then-passkey path: without autofill support the sign-in page
    // does not offer the passkey by itself (test/e2e/account-pages.test.ts covers autofill).
    const { cdp, authenticatorId } = await addVirtualAuthenticator(page, { autofill: false });

    // Sign in with the password (no factor yet: straight in).
    await signInOnPage(page, base, { email: user.email, password: TEST_PASSWORD }, '/');

    // Adding a passkey needs sudo: the script sends the browser to /sudo and it comes back.
    await page.goto(`${base}/two-factor`);
    await page.fill('#passkey-name', 'Laptop');
    await page.click('#passkey-register');
    await page.waitForURL(`${base}/sudo?next=%2Ftwo-factor`);
    await page.fill('#sudo-password input[name=proof]', TEST_PASSWORD);
    await page.click('#sudo-password button[type=submit]');
    await page.waitForURL(`${base}/two-factor`);

    await page.fill('#passkey-name', 'Laptop');
    await page.click('#passkey-register');
    await page.waitForSelector('#passkey-result .recovery-code');
    expect(await page.locator('#passkey-result .recovery-code').count()).toBe(10);
    const stored = await t.services.db
      .selectFrom('passkeys')
      .selectAll()
      .where('user_id', '=', user.id)
      .execute();
    expect(stored).toHaveLength(1);
    expect(stored[0]!.name).toBe('Laptop');
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(credentials.map((c) => Buffer.from(c.credentialId, 'base64').toString('base64url'))).toContain(
      stored[0]!.credential_id,
    );
    await page.goto(`${base}/two-factor`);
    expect(await page.textContent('.passkey-name')).toBe('Laptop');
    expect((await json(page, '/two-factor')).body.data.enrolled_factors).toEqual(['passkey']);

    // Sign out; signing in again now asks for the passkey.
    await page.click('nav form[action="/logout"] button');
    await page.waitForURL(`${base}/login`);
    await page.fill('#field-email', user.email);
    await page.fill('#field-password', TEST_PASSWORD);
    await page.click('form[action="/login"] button[type=submit]');
    await page.waitForURL(`${base}/action/show`);
    expect((await json(page, '/me')).status).toBe(401);
    await page.click('#passkey-sign-in');
    await page.waitForURL(`${base}/`);
    expect((await json(page, '/me')).body.user.id).toBe(user.id);
    const afterSignIn = await t.services.db
      .selectFrom('passkeys')
      .selectAll()
      .where('user_id', '=', user.id)
      .executeTakeFirstOrThrow();
    expect(afterSignIn.last_used_at).not.toBeNull();

    // Sudo with the passkey, back to the page that asked.
    expect((await json(page, '/sudo')).body.data.active).toBe(false);
    await page.goto(`${base}/sudo?next=%2Ftwo-factor`);
    await page.click('#passkey-sudo');
    await page.waitForURL(`${base}/two-factor`);
    expect((await json(page, '/sudo')).body.data.active).toBe(true);

    // Remove it.
    // Removing asks first (a confirmation dialog); accept it.
    page.once('dialog', (dialog) => void dialog.accept());
    await page.click('button[data-remove-passkey="Laptop"]');
    await page.waitForURL(`${base}/two-factor`);
    expect(await page.textContent('.flash')).toContain('Passkey removed');
    expect(await page.locator('.passkey-row').count()).toBe(0);
    expect(
      await t.services.db.selectFrom('passkeys').selectAll().where('user_id', '=', user.id).execute(),
    ).toEqual([]);
    expect((await json(page, '/two-factor')).body.data).toMatchObject({
      enrolled_factors: [],
      recovery_codes_remaining: 0,
    });
    await page.close();
  }, 90_000);
});
