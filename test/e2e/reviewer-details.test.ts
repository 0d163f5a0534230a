// Dialect-independent: pages in a browser; `npm test` runs it with the first database only.
/**
 * The small things a reviewer notices, each seen in Chromium where it happened: a field label
 * that repeats its heading, two wordings for one act, a page left at the URL of a form POST, and
 * a sudo detour that forgets what the administrator was doing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { chromiumAvailable } from '../support/services.ts';
import { checkPageAtWidths } from '../support/page-check.ts';
import { signInOnPage, startBrowserApp, type BrowserApp } from '../support/browser.ts';
import { TEST_PASSWORD, type TestApp } from '../support/app.ts';
import { totpCode } from '../support/factors.ts';
import { grantAdminRole } from '../../src/auth/core/roles.ts';

const SHOTS = process.env.CITADEL_SHOTS_DIR ?? '/tmp/shots-34';

/**
 * Every form POST the page navigates with, and its answer: a POST that succeeded answers with a
 * redirect (303) to a GET page, never with a page of its own (Post/Redirect/Get); a refused one
 * may show the form again with its errors (4xx).
 */
function postAnswers(page: Page): { url: string; status: number }[] {
  const answers: { url: string; status: number }[] = [];
  page.on('response', (response) => {
    const request = response.request();
    if (request.method() === 'POST' && request.isNavigationRequest() && request.frame() === page.mainFrame())
      answers.push({ url: new URL(response.url()).pathname, status: response.status() });
  });
  return answers;
}

describe.skipIf(!chromiumAvailable())('what a reviewer notices, in Chromium', () => {
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

  it('setting up the authenticator app ends at GET /two-factor, which shows the recovery codes once', async () => {
    const user = await t.createUser();
    const page = await browser.newPage();
    const posts = postAnswers(page);
    await signInOnPage(page, base, { email: user.email, password: TEST_PASSWORD }, '/');
    // The sudo page, as a user with a password only sees it: no label repeating its heading.
    await checkPageAtWidths(page, `${base}/sudo?next=%2Ftwo-factor`, { name: 'sudo', shots: SHOTS });

    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${base}/two-factor`);
    await page.getByRole('link', { name: 'Set up authenticator app' }).click();
    await page.waitForURL(/\/sudo\?/);
    await page.fill('#sudo-password #field-proof', TEST_PASSWORD);
    await page.click('#sudo-password button[type=submit]');
    await page.waitForURL(`${base}/two-factor?setup=totp`);
    const secret = (await page.textContent('#totp-secret'))!.trim();
    await page.fill('#totp-enroll #field-proof', totpCode(t, secret));
    await page.click('form[action="/two-factor/enroll/confirm"] button[type=submit]');
    await page.waitForURL(`${base}/two-factor`);
    expect(await page.locator('.recovery-code').count()).toBe(10);
    expect(await page.textContent('main')).toContain('Authenticator app enabled.');
    await page.screenshot({ path: `${SHOTS}/two-factor-codes-1280.png`, fullPage: true });
    await page.reload();
    expect(await page.locator('.recovery-code').count()).toBe(0);

    // New codes: the same, from the settings page.
    await page.click('form[action="/two-factor/recovery-codes"] button[type=submit]');
    await page.waitForURL(`${base}/two-factor`);
    expect(await page.locator('.recovery-code').count()).toBe(10);

    expect(posts.length).toBeGreaterThanOrEqual(3);
    for (const answer of posts) expect(answer.status, answer.url).toBe(303);
    await page.close();
  }, 120_000);

  it('the sessions page words one act one way, on every row', async () => {
    const user = await t.createUser();
    // Another device first, then this browser.
    await t.signIn(user);
    const page = await browser.newPage();
    await signInOnPage(page, base, { email: user.email, password: TEST_PASSWORD }, '/');
    await checkPageAtWidths(page, `${base}/sessions`, { name: 'sessions', shots: SHOTS });
    const buttons = await page.locator('li.session form button[type=submit]').allInnerTexts();
    expect(buttons.length).toBe(2);
    expect(new Set(buttons.map((b) => b.trim()))).toEqual(new Set(['Sign out this session']));
    await page.close();
  }, 60_000);

  it('"Act as" sent to the sudo page comes back to confirm it, and then acts', async () => {
    const admin = await t.createUser({ username: 'ada', email: 'ada@example.com' });
    await grantAdminRole(t.services.db, admin.email);
    const bob = await t.createUser({ username: 'bob', email: 'bob@example.com' });
    const page = await browser.newPage();
    await signInOnPage(page, base, { email: admin.email, password: TEST_PASSWORD }, '/');
    await page.goto(`${base}/admin/users/${bob.id}`);
    await page.click(`form[action="/admin/users/${bob.id}/impersonate"] button[type=submit]`);
    await page.waitForURL(/\/sudo\?/);
    await page.fill('#sudo-password #field-proof', TEST_PASSWORD);
    await page.click('#sudo-password button[type=submit]');
    await page.waitForURL(`${base}/admin/users/${bob.id}?act=1`);
    expect(await page.textContent('#impersonate-confirm')).toContain('Act as bob now?');
    await checkPageAtWidths(page, page.url(), { name: 'admin-act-as-confirm', shots: SHOTS });
    await page.click(`form[action="/admin/users/${bob.id}/impersonate"] button[type=submit]`);
    await page.waitForURL(`${base}/`);
    expect(await page.textContent('.impersonation')).toContain('acting as bob');
    await page.close();
  }, 60_000);
});
