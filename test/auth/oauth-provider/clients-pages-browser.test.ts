// Dialect-independent: pages in a browser; `npm test` runs it with the first database only.
/**
 * The OAuth client pages in Chromium: an administrator registers a client through the form (sudo
 * asked on the way), sees its secret once, opens it, rotates and disables it; a user sees the apps
 * they let in on "Connected apps" and withdraws one. At 1280 px and 375 px: nothing wider than the
 * screen, no serious or critical axe violation; screenshots kept for a person to look at.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { chromiumAvailable } from '../../support/services.ts';
import { checkPageAtWidths } from '../../support/page-check.ts';
import { signInOnPage, startBrowserApp, type BrowserApp } from '../../support/browser.ts';
import { TEST_PASSWORD, type TestApp } from '../../support/app.ts';
import { grantAdminRole } from '../../../src/auth/core/roles.ts';
import { defaultPlugins } from '../../../src/auth/index.ts';
import { oauthProvider } from '../../../src/auth/oauth-provider/plugin.ts';
import { createClient, getClient, verifyClientSecret } from '../../../src/auth/oauth-provider/clients.ts';

const SHOTS = process.env.CITADEL_SHOTS_DIR ?? '/tmp/shots-oauth-clients';

const checkPage = (page: Page, base: string, path: string, name: string) =>
  checkPageAtWidths(page, `${base}${path}`, { name, shots: SHOTS });

describe.skipIf(!chromiumAvailable())('OAuth client pages in Chromium', () => {
  let t: TestApp;
  let base: string;
  let suite: BrowserApp;
  let browser: BrowserContext;

  beforeAll(async () => {
    suite = await startBrowserApp(
      { plugins: [...defaultPlugins(), oauthProvider({ dynamicRegistration: true })] },
      SHOTS,
    );
    ({ t, base, browser } = suite);
  }, 60_000);

  afterAll(async () => {
    await suite?.close();
  });

  it('admin: register through the form, the secret once, rotate, disable', { timeout: 120_000 }, async () => {
    const root = await t.createUser({ username: 'Administrator', email: 'root@example.com' });
    await grantAdminRole(t.services.db, root.email);
    await createClient(
      t.services.db,
      {
        client_name: 'Copilot CLI (registered itself with a long name to see how it wraps)',
        redirect_uris: ['http://127.0.0.1:53682/callback'],
        post_logout_redirect_uris: [],
        application_type: 'native',
        token_endpoint_auth_method: 'none',
        scope: ['openid', 'profile', 'email', 'offline_access'],
        id_token_signed_response_alg: 'RS256',
        registration: 'dynamic',
      },
      t.clock.now(),
    );
    const page = await browser.newPage();
    await signInOnPage(page, base, { email: root.email, password: TEST_PASSWORD }, '/');
    await checkPage(page, base, '/admin/oauth/clients', 'admin-oauth-clients');

    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${base}/admin/oauth/clients`);
    await page.fill('#field-client_name', 'Team Wiki');
    await page.fill('#field-redirect_uris', 'https://wiki.example.com/oauth/callback');
    await page.selectOption('#field-token_endpoint_auth_method', 'client_secret_basic');
    await page.fill('#field-scope', 'openid profile email offline_access');
    await page.click('form[action="/admin/oauth/clients"] button[type=submit]');
    // Registering is a change: sudo first, then back with what was typed.
    await page.waitForURL(/\/sudo(\?|$)/);
    await page.fill('#sudo-password #field-proof', TEST_PASSWORD);
    await page.click('#sudo-password button[type=submit]');
    await page.waitForURL((url) => url.pathname !== '/sudo');
    if (!(await page.locator('#new-secret').count()))
      await page.click('form[action="/admin/oauth/clients"] button[type=submit]');
    await page.locator('#new-secret').waitFor();
    const clientId = (await page.textContent('#new-client-id'))!.trim();
    const secret = (await page.textContent('#new-secret-value'))!.trim();
    const client = (await getClient(t.services.db, clientId))!;
    expect(client.client_name).toBe('Team Wiki');
    expect(client.scope).toEqual(['openid', 'profile', 'email', 'offline_access']);
    expect(verifyClientSecret(client, secret)).toBe(true);
    for (const width of [1280, 375]) {
      await page.setViewportSize({ width, height: 900 });
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      await page.screenshot({ path: `${SHOTS}/admin-oauth-client-created-${width}.png`, fullPage: true });
    }
    // Once: the list and the client's page no longer show it.
    await page.goto(`${base}/admin/oauth/clients`);
    expect(await page.content()).not.toContain(secret);

    await page.click(`a[href="/admin/oauth/clients/${clientId}"]`);
    await page.waitForURL(`${base}/admin/oauth/clients/${clientId}`);
    expect(await page.content()).not.toContain(secret);
    await checkPage(page, base, `/admin/oauth/clients/${clientId}`, 'admin-oauth-client');
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.click(`form[action="/admin/oauth/clients/${clientId}/secret"] button`);
    await page.locator('#new-secret-value').waitFor();
    const rotated = (await page.textContent('#new-secret-value'))!.trim();
    expect(rotated).not.toBe(secret);
    expect(verifyClientSecret((await getClient(t.services.db, clientId))!, rotated)).toBe(true);
    await page.goto(`${base}/admin/oauth/clients/${clientId}`);
    await page.click(`form[action="/admin/oauth/clients/${clientId}/disable"] button`);
    await page.waitForURL(`${base}/admin/oauth/clients/${clientId}`);
    expect(await page.textContent('main')).toContain('The client is disabled.');
    expect((await getClient(t.services.db, clientId))!.disabled_at).not.toBeNull();
    await page.close();
  });

  it('account: connected apps, withdraw one', { timeout: 120_000 }, async () => {
    const user = await t.createUser({ username: 'Reader', email: 'reader@example.com' });
    const now = t.clock.now().toISOString();
    for (const [name, registration] of [
      ['Team Wiki', 'admin'],
      ['Some MCP client that registered itself', 'dynamic'],
    ] as const) {
      const { client } = await createClient(
        t.services.db,
        {
          client_name: name,
          redirect_uris: ['https://apps.example.com/cb'],
          post_logout_redirect_uris: [],
          application_type: 'web',
          token_endpoint_auth_method: 'none',
          scope: ['openid', 'profile', 'email', 'offline_access'],
          id_token_signed_response_alg: 'RS256',
          registration,
        },
        t.clock.now(),
      );
      await t.services.db
        .insertInto('oauth_consents')
        .values({
          user_id: user.id,
          client_id: client.client_id,
          scope: 'openid profile email offline_access',
          created_at: now,
          updated_at: now,
        })
        .execute();
    }
    const page = await browser.newPage();
    await signInOnPage(page, base, { email: user.email, password: TEST_PASSWORD }, '/');
    await page.goto(`${base}/account`);
    await page.click('a[href="/account/apps"]');
    await page.waitForURL(`${base}/account/apps`);
    await checkPage(page, base, '/account/apps', 'account-apps');
    await page.setViewportSize({ width: 375, height: 900 });
    page.once('dialog', (dialog) => void dialog.accept());
    await page.locator('li', { hasText: 'Team Wiki' }).locator('button').click();
    await page.waitForURL(`${base}/account/apps`);
    await page.locator('text=Team Wiki no longer has access to your account.').waitFor();
    expect(await page.locator('#app-list li').count()).toBe(1);
    await page.screenshot({ path: `${SHOTS}/account-apps-withdrawn-375.png`, fullPage: true });
    await page.close();
  });
});
