// Dialect-independent: pages in a browser; `npm test` runs it with the first database only.
/**
 * The admin pages in Chromium (contract section 18): the users list with search, a user's actions
 * (disable, enable, impersonate), the impersonation banner with "Stop" on every page. At 1280 px
 * and 375 px: nothing wider than the screen, no serious or critical axe violation; screenshots are
 * kept for a person to look at.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { chromiumAvailable } from '../support/services.ts';
import { checkPageAtWidths } from '../support/page-check.ts';
import { signInOnPage, startBrowserApp, type BrowserApp } from '../support/browser.ts';
import { TEST_PASSWORD, type TestApp } from '../support/app.ts';
import { grantAdminRole } from '../../src/auth/core/roles.ts';

const SHOTS = process.env.CITADEL_SHOTS_DIR ?? '/tmp/shots-admin';

const checkPage = (page: Page, base: string, path: string, name: string) =>
  checkPageAtWidths(page, `${base}${path}`, { name, shots: SHOTS });

describe.skipIf(!chromiumAvailable())('admin pages in Chromium', () => {
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

  it(
    'list, search, disable and enable, impersonate with the banner, stop',
    { timeout: 120_000 },
    async () => {
      const root = await t.createUser({ username: 'Administrator', email: 'root@example.com' });
      await grantAdminRole(t.services.db, root.email);
      const target = await t.createUser({
        username: 'mallory-with-a-rather-long-name',
        email: 'mallory.long.address@example.com',
      });
      for (let i = 0; i < 4; i++)
        await t.createUser({ username: `reader${i}`, email: `reader${i}@example.com` });

      const page = await browser.newPage();
      await signInOnPage(page, base, { email: root.email, password: TEST_PASSWORD }, '/');
      // The header's "Admin" link: at 375 px the header keeps its two rows (brand, "Admin" and
      // "Sign out"; then the page links), nothing overlapping.
      await page.setViewportSize({ width: 375, height: 900 });
      await page.goto(`${base}/account`);
      const adminLink = page.locator('.site-header a[href="/admin/users"]');
      expect(await adminLink.textContent()).toBe('Admin');
      const boxes = await Promise.all(
        (
          await page
            .locator('.site-header .brand, .site-header a, .site-header form[action="/logout"] button')
            .all()
        ).map(async (element) => (await element.boundingBox())!),
      );
      expect(boxes).toHaveLength(7);
      for (let i = 0; i < boxes.length; i += 1)
        for (let j = i + 1; j < boxes.length; j += 1) {
          const [a, b] = [boxes[i]!, boxes[j]!];
          const apart =
            a.x + a.width <= b.x || b.x + b.width <= a.x || a.y + a.height <= b.y || b.y + b.height <= a.y;
          expect(apart, `${i} ${j}`).toBe(true);
        }
      expect(new Set(boxes.map((b) => Math.round(b.y / 10))).size).toBe(2);
      expect((await page.locator('.site-header').boundingBox())!.height).toBeLessThan(100);
      await checkPage(page, base, '/account', 'admin-header-account');
      await adminLink.click();
      await page.waitForURL(`${base}/admin/users`);
      await checkPage(page, base, '/admin/users', 'admin-users');

      await page.setViewportSize({ width: 1280, height: 900 });
      await page.goto(`${base}/admin/users`);
      await page.fill('#field-search', 'MALLORY');
      await page.click('form[role=search] button[type=submit]');
      await page.waitForURL(/search=MALLORY/);
      const rows = await page.$$eval('#user-list tbody tr', (trs) => trs.map((tr) => tr.textContent ?? ''));
      expect(rows).toHaveLength(1);
      expect(rows[0]).toContain('mallory.long.address@example.com');
      await page.screenshot({ path: `${SHOTS}/admin-users-search-1280.png`, fullPage: true });

      await page.click('#user-list a');
      await page.waitForURL(`${base}/admin/users/${target.id}`);
      await checkPage(page, base, `/admin/users/${target.id}`, 'admin-user');

      // Disabling is a change: the admin confirms the password first, then comes back.
      await page.setViewportSize({ width: 375, height: 900 });
      await page.goto(`${base}/admin/users/${target.id}`);
      await page.fill('#field-reason', 'Account under attack');
      await page.click(`form[action="/admin/users/${target.id}/disable"] button[type=submit]`);
      await page.waitForURL(/\/sudo(\?|$)/);
      await page.fill('#sudo-password #field-proof', TEST_PASSWORD);
      await page.click('#sudo-password button[type=submit]');
      await page.waitForURL((url) => url.pathname !== '/sudo');
      await page.goto(`${base}/admin/users/${target.id}`);
      await page.fill('#field-reason', 'Account under attack');
      await page.click(`form[action="/admin/users/${target.id}/disable"] button[type=submit]`);
      await page.waitForURL(`${base}/admin/users/${target.id}`);
      expect(await page.textContent('main')).toContain('Disabled');
      await checkPage(page, base, `/admin/users/${target.id}`, 'admin-user-disabled');
      expect((await t.services.users.findById(target.id))!.disabled_at).not.toBeNull();

      await page.click(`form[action="/admin/users/${target.id}/enable"] button[type=submit]`);
      await page.waitForURL(`${base}/admin/users/${target.id}`);
      expect((await t.services.users.findById(target.id))!.disabled_at).toBeNull();

      // Impersonation: the banner on every page, with "Stop".
      await page.click(`form[action="/admin/users/${target.id}/impersonate"] button[type=submit]`);
      await page.waitForURL(`${base}/`);
      for (const path of ['/', '/account', '/tokens']) {
        await page.goto(`${base}${path}`);
        const banner = await page.textContent('.impersonation');
        expect(banner, path).toContain('acting as mallory-with-a-rather-long-name');
        expect(await page.locator('a[href="/admin/users"]').count(), path).toBe(0);
      }
      await checkPage(page, base, '/account', 'impersonating-account');
      await checkPage(page, base, '/', 'impersonating-home');
      await page.setViewportSize({ width: 375, height: 900 });
      await page.click('.impersonation button[type=submit]');
      await page.waitForURL(`${base}/admin/users/${target.id}`);
      expect(await page.$('.impersonation')).toBeNull();
      expect(await page.textContent('main')).toContain('mallory.long.address@example.com');
      expect(await page.locator('.site-header a[href="/admin/users"]').count()).toBe(1);
    },
  );

  it('a non-admin sees no "Admin" link and no admin page (403)', async () => {
    const user = await t.createUser();
    await browser.clearCookies();
    const page = await browser.newPage();
    await signInOnPage(page, base, { email: user.email, password: TEST_PASSWORD }, '/');
    for (const path of ['/', '/account']) {
      await page.goto(`${base}${path}`);
      expect(await page.locator('.site-header form[action="/logout"]').count(), path).toBe(1);
      expect(await page.locator('a[href="/admin/users"]').count(), path).toBe(0);
    }
    const response = await page.goto(`${base}/admin/users`);
    expect(response?.status()).toBe(403);
    expect(await page.content()).not.toContain('user-list');
  });
});
