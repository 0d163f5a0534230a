// Dialect-independent: pages in a browser; `npm test` runs it with the first database only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { chromiumAvailable } from '../support/services.ts';
import { checkPageAtWidths } from '../support/page-check.ts';
import { signInOnPage, startBrowserApp, type BrowserApp } from '../support/browser.ts';
import { TEST_PASSWORD, type TestApp } from '../support/app.ts';
import { linkIn } from '../support/mail.ts';
import { blogApi } from '../../examples/blog/api.ts';
import { blogMigrations } from '../../examples/blog/migrations.ts';
import { blogPlugins } from '../../examples/blog/citadel.config.ts';

/** Screenshots are for a person to look at; they never go into the repository. */
const SHOTS = process.env.CITADEL_SHOTS_DIR ?? '/tmp/shots-organizations';

const checkPage = (page: Page, base: string, path: string, name: string) =>
  checkPageAtWidths(page, `${base}${path}`, { name, shots: SHOTS });

describe.skipIf(!chromiumAvailable())('organization pages in Chromium (demo)', () => {
  let t: TestApp;
  let base: string;
  let suite: BrowserApp;
  let browser: BrowserContext;

  beforeAll(async () => {
    suite = await startBrowserApp({ api: blogApi, migrations: blogMigrations, plugins: blogPlugins }, SHOTS);
    ({ t, base, browser } = suite);
  }, 60_000);

  afterAll(async () => {
    await suite?.close();
  });

  it(
    'create, switch, invite, accept: every page fits 375 px and 1280 px, axe-clean',
    { timeout: 120_000 },
    async () => {
      const owner = await t.createUser({ username: 'olivia', emailVerified: true });
      const guest = await t.createUser({
        username: 'gustav',
        email: 'gustav@example.com',
        emailVerified: true,
      });
      const page = await browser.newPage();
      await signInOnPage(page, base, { email: owner.email, password: TEST_PASSWORD }, '/');

      await checkPage(page, base, '/organizations', 'organizations-empty');
      await page.setViewportSize({ width: 1280, height: 900 });
      await page.goto(`${base}/organizations`);
      await page.fill('#field-name', 'Northwind Traders');
      await page.click('form[action="/organizations"] button[type=submit]');
      await page.waitForURL(/\/organizations\/\d+$/);
      const id = new URL(page.url()).pathname.split('/').pop()!;
      // The header's switcher names the new, active organization.
      expect(await page.inputValue('#organization-switch')).toBe(id);
      await page.goto(`${base}/organizations`);
      await page.fill('#field-name', 'Second shop');
      await page.click('form[action="/organizations"] button[type=submit]');
      await page.waitForURL(/\/organizations\/\d+$/);
      // Switch back through the header.
      await page.selectOption('#organization-switch', id);
      await page.click('form.switcher[action="/organizations/active"] button[type=submit]');
      await page.waitForURL(`${base}/organizations/${id}`);
      expect(await page.inputValue('#organization-switch')).toBe(id);
      // With the switcher shown, the header still links to the organizations page, at both widths.
      for (const width of [375, 1280]) {
        await page.setViewportSize({ width, height: 900 });
        expect(await page.locator('.site-header a[href="/organizations"]').isVisible(), `${width}px`).toBe(
          true,
        );
      }
      await page.setViewportSize({ width: 1280, height: 900 });

      // The demo's projects live in the active organization.
      const created = await page.evaluate(async () => {
        const csrf = (document.querySelector('input[name=_csrf]') as HTMLInputElement).value;
        const response = await fetch('/api/v1/projects', {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json', 'x-csrf-token': csrf },
          body: JSON.stringify({ name: 'Launch plan' }),
        });
        return { status: response.status, body: await response.json() };
      });
      expect(created.status).toBe(201);
      expect(created.body.data.organization_id).toBe(Number(id));

      await page.fill('#field-email', guest.email);
      await page.selectOption('#invite-role', 'viewer');
      await page.click(`form[action="/organizations/${id}/invitations"] button[type=submit]`);
      await page.waitForURL(`${base}/organizations/${id}`);
      expect(await page.textContent('body')).toContain(guest.email);
      await checkPage(page, base, '/organizations', 'organizations-list');
      await checkPage(page, base, `/organizations/${id}`, 'organization-owner');

      const mail = await t.mail.waitFor(guest.email, { count: 1 });
      const link = linkIn(mail, `${base}/organizations/invitations/`);
      const guestContext = await browser.browser()?.newContext();
      const guestPage = guestContext ? await guestContext.newPage() : await browser.newPage();
      await browser.clearCookies();
      await signInOnPage(guestPage, base, { email: guest.email, password: TEST_PASSWORD }, '/');
      await checkPage(guestPage, base, new URL(link).pathname, 'invitation');
      await guestPage.setViewportSize({ width: 375, height: 900 });
      await guestPage.goto(link);
      await guestPage.click('form[action="/organizations/invitations/accept"] button[type=submit]');
      await guestPage.waitForURL(`${base}/organizations/${id}`);
      await checkPage(guestPage, base, `/organizations/${id}`, 'organization-viewer');
      // A viewer reads the projects, and may not write them.
      const answers = await guestPage.evaluate(async () => {
        const csrf = (document.querySelector('input[name=_csrf]') as HTMLInputElement).value;
        const list = await fetch('/api/v1/projects', { headers: { accept: 'application/json' } });
        const write = await fetch('/api/v1/projects', {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json', 'x-csrf-token': csrf },
          body: JSON.stringify({ name: 'Not allowed' }),
        });
        return {
          list: list.status,
          names: ((await list.json()) as { data: { name: string }[] }).data.map((p) => p.name),
          write: write.status,
        };
      });
      expect(answers).toEqual({ list: 200, names: ['Launch plan'], write: 403 });
    },
  );
});
