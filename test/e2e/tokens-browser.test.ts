import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type BrowserContext } from 'playwright-core';
import { startTestApp, TEST_PASSWORD, type TestApp } from '../helpers/app.ts';
import { MockProvider } from '../social/mock-provider.ts';

const CHROMIUM = '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) console.warn(`[skipped] token page browser tests: ${CHROMIUM} is not installed`);

async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

describe.skipIf(!hasChromium)('token page and social sign-in in Chromium', () => {
  let t: TestApp;
  let mock: MockProvider;
  let base: string;
  let profile: string;
  let browser: BrowserContext;

  beforeAll(async () => {
    mock = await new MockProvider().start();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await startTestApp({ appUrl: base, oauthProviders: [mock.providerConfig()] });
    await t.app.listen({ port, host: '127.0.0.1' });
    profile = mkdtempSync(join(tmpdir(), 'citadel-chromium-'));
    browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await mock?.stop();
    if (profile) rmSync(profile, { recursive: true, force: true });
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
    await page.goto(`${base}/login`);
    await page.fill('#field-email', user.email);
    await page.fill('#field-password', TEST_PASSWORD);
    await page.click('form[action="/login"] button[type=submit]');
    await page.waitForURL(`${base}/`);

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

    await page.click('#token-list form[action^="/tokens/revoke/"] button[type=submit]');
    await page.waitForURL(`${base}/tokens`);
    await page.waitForSelector('#no-tokens');
    expect(await page.textContent('[role=status]')).toContain('Token revoked.');
    expect(await bearerMe(token)).toBe(401);
    await page.close();
  });

  it('shows field errors on the page and keeps the name', async () => {
    const user = await t.createUser();
    await browser.clearCookies();
    const page = await browser.newPage();
    await page.goto(`${base}/login`);
    await page.fill('#field-email', user.email);
    await page.fill('#field-password', TEST_PASSWORD);
    await page.click('form[action="/login"] button[type=submit]');
    await page.waitForURL(`${base}/`);
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
