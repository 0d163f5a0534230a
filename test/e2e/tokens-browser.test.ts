// Dialect-independent: pages in a browser; `npm test` runs it with the first database only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable } from '../support/services.ts';
import {
  startListeningTestApp,
  launchChromium,
  type ChromiumSession,
  signInOnPage,
} from '../support/browser.ts';
import type { BrowserContext } from 'playwright-core';
import { TEST_PASSWORD, type TestApp } from '../support/app.ts';
import { MockProvider, socialPlugins } from '../support/mock-provider.ts';

describe.skipIf(!chromiumAvailable())('token page and social sign-in in Chromium', () => {
  let t: TestApp;
  let mock: MockProvider;
  let base: string;
  let chromiumSession: ChromiumSession;
  let browser: BrowserContext;

  beforeAll(async () => {
    mock = await new MockProvider().start();
    ({ t, base } = await startListeningTestApp({ plugins: socialPlugins([mock.providerConfig()]) }));
    chromiumSession = await launchChromium();
    browser = chromiumSession.context;
  }, 60_000);

  afterAll(async () => {
    await chromiumSession?.close();
    await t?.close();
    await mock?.stop();
  });

  async function bearerMe(token: string): Promise<number> {
    const response = await fetch(`${base}/me`, {
      headers: { accept: 'application/json', authorization: `Bearer ${token}` },
    });
    return response.status;
  }

  it('creates a token (after confirming the password), shows it once, revokes it', async () => {
    const user = await t.createUser();
    await browser.clearCookies();
    const page = await browser.newPage();
    await signInOnPage(page, base, { email: user.email, password: TEST_PASSWORD }, '/');

    await page.goto(`${base}/tokens`);
    await page.waitForSelector('#no-tokens');
    await page.fill('#field-name', 'Browser token');
    await page.fill('#field-abilities', 'posts:read, tokens:read');
    await page.click('form[action="/tokens/create"] button[type=submit]');
    // Creating a token is a sensitive operation: the browser is sent to confirm the password first.
    await page.waitForURL(/\/sudo(\?|$)/, { timeout: 5000 });
    await page.fill('#sudo-password #field-proof', TEST_PASSWORD);
    await page.click('#sudo-password button[type=submit]');
    await page.waitForURL((url) => url.pathname !== '/sudo', { timeout: 5000 });
    await page.goto(`${base}/tokens`);

    await page.fill('#field-name', 'Browser token');
    await page.fill('#field-abilities', 'posts:read, tokens:read');
    await page.click('form[action="/tokens/create"] button[type=submit]');
    await page.waitForSelector('#new-token-value');
    const token = (await page.textContent('#new-token-value'))!.trim();
    expect(token).toMatch(/^citadel_pat_[0-9A-Za-z]{49}$/);
    expect(await page.textContent('#token-list')).toContain('Browser token');
    expect(await page.textContent('#token-list')).toContain('tokens:read');
    expect(await bearerMe(token)).toBe(200);

    // Shown once: the list page never has it again.
    await page.goto(`${base}/tokens`);
    await page.waitForSelector('#token-list');
    expect(await page.$('#new-token-value')).toBeNull();
    expect(await page.content()).not.toContain(token);

    // Revoking asks first (a confirmation dialog naming the token); accept it.
    const dialogs: string[] = [];
    page.once('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.accept();
    });
    await page.click('#token-list form[action^="/tokens/revoke/"] button[type=submit]');
    await page.waitForURL(`${base}/tokens`);
    expect(dialogs).toEqual([expect.stringContaining('Browser token')]);
    await page.waitForSelector('#no-tokens');
    expect(await page.textContent('[role=status]')).toContain('Token revoked.');
    expect(await bearerMe(token)).toBe(401);
    await page.close();
  });

  it('shows field errors on the page and keeps the name', async () => {
    const user = await t.createUser();
    await browser.clearCookies();
    const page = await browser.newPage();
    await signInOnPage(page, base, { email: user.email, password: TEST_PASSWORD }, '/');
    // The page offers the step-up and comes back to itself afterwards.
    await page.goto(`${base}/tokens`);
    await page.click('#sudo-notice a');
    await page.waitForURL(`${base}/sudo?next=%2Ftokens`);
    await page.fill('#sudo-password #field-proof', TEST_PASSWORD);
    await page.click('#sudo-password button[type=submit]');
    await page.waitForURL(`${base}/tokens`);
    expect(await page.$('#sudo-notice')).toBeNull();

    await page.fill('#field-name', 'Bad abilities');
    await page.fill('#field-abilities', 'posts:write');
    await page.click('form[action="/tokens/create"] button[type=submit]');
    await page.waitForSelector('#field-abilities-error');
    expect(await page.inputValue('#field-name')).toBe('Bad abilities');
    expect(await page.$('#new-token-value')).toBeNull();
    await page.close();
  });

  it('signs in with the provider from the sign-in page button', async () => {
    mock.identity = {
      sub: 'browser-user',
      email: 'browser.social@example.com',
      email_verified: true,
      preferred_username: 'browser social',
    };
    await browser.clearCookies();
    const page = await browser.newPage();
    await page.goto(`${base}/login`);
    await page.click('a[href="/oauth/mock"]');
    await page.waitForURL(`${base}/`);
    expect(await page.textContent('main')).toContain('browser social');
    await page.close();
  });
});
