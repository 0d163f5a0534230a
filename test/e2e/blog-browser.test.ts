// Dialect-independent: pages in a browser; `npm test` runs it with the first database only.
/**
 * The demo blog in Chromium, as a visitor uses it: sign in, write a post, publish it, find it on
 * the front page (and by search), comment on it. Every blog page is checked at 375 px and 1280 px:
 * nothing wider than the screen, no serious or critical axe-core finding; screenshots are kept in
 * CITADEL_SHOTS_DIR (default /tmp/shots-blog).
 */
import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { chromiumAvailable } from '../support/services.ts';
import { checkPageAtWidths } from '../support/page-check.ts';
import {
  launchChromium,
  signInOnPage,
  startListeningTestApp,
  type ChromiumSession,
} from '../support/browser.ts';
import { TEST_PASSWORD, type TestApp } from '../support/app.ts';
import { blogApi } from '../../examples/blog/api.ts';
import { blogMigrations } from '../../examples/blog/migrations.ts';
import { blogPages } from '../../examples/blog/pages/plugin.ts';
import { defaultPlugins } from '../../src/index.ts';
import { insertPosts } from '../support/api-app.ts';

const SHOTS = process.env.CITADEL_SHOTS_DIR ?? '/tmp/shots-blog';

const checkPage = (page: Page, url: string, name: string) =>
  checkPageAtWidths(page, url, { name, shots: SHOTS, widths: [375, 1280] });

describe.skipIf(!chromiumAvailable())('the demo blog in Chromium', () => {
  let t: TestApp;
  let base: string;
  let chromium: ChromiumSession;

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    ({ t, base } = await startListeningTestApp({
      api: blogApi,
      migrations: blogMigrations,
      plugins: [...defaultPlugins(), blogPages()],
    }));
    const someone = await t.createUser({ username: 'grace' });
    // Twelve older posts: the front page has a second page.
    await insertPosts(
      Object.assign(t, { db: t.services.db, queries: [], responses: undefined as never }),
      someone,
      Array.from({ length: 12 }, (_, i) => ({
        title: `Notes from the workshop, part ${i + 1}`,
        body: `What we learned on day ${i + 1}. `.repeat(8),
        created_at: new Date(Date.UTC(2026, 0, 1 + i)).toISOString(),
      })),
    );
    chromium = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await chromium?.close();
    await t?.close();
  });

  it('sign in, write a draft, publish it, see it on the front page, find it, comment on it', async () => {
    const user = await t.createUser({ username: 'ada' });
    const page = await chromium.context.newPage();
    await signInOnPage(page, base, { email: user.email, password: TEST_PASSWORD }, '/');

    await page.click('a.button[href="/my/posts/new"]');
    await page.waitForURL(`${base}/my/posts/new`);
    await page.fill('#field-title', 'Llamas at the workshop');
    await page.fill('#field-body', 'They came for the hay.\n\nThey stayed for the talks.');
    await page.click('form[action="/my/posts"] button[type=submit]');
    await page.waitForURL(`${base}/my/posts`);
    expect(await page.locator('.flash.success').textContent()).toContain('Your draft is saved.');
    const row = page.locator('.post-list > li', { hasText: 'Llamas at the workshop' });
    expect(await row.locator('.badge').textContent()).toBe('Draft');

    // A draft is not on the front page.
    await page.goto(`${base}/`);
    expect(await page.locator('.post-list').textContent()).not.toContain('Llamas at the workshop');

    await page.goto(`${base}/my/posts`);
    await row.locator('button', { hasText: 'Publish' }).click();
    await page.waitForURL(/\/posts\/[^/]+$/);
    const postUrl = page.url();
    expect(await page.locator('h1').textContent()).toBe('Llamas at the workshop');
    expect(await page.locator('.flash.success').textContent()).toContain('Your post is published.');

    await page.click('a.brand');
    await page.waitForURL(`${base}/`);
    expect(await page.locator('.post-list h2').first().textContent()).toBe('Llamas at the workshop');

    await page.fill('#field-search', 'llamas');
    await page.click('form.search button[type=submit]');
    await page.waitForURL(`${base}/?search=llamas`);
    expect(await page.locator('.post-list h2').allTextContents()).toEqual(['Llamas at the workshop']);

    await page.click('.post-list h2 a');
    await page.waitForURL(postUrl);
    await page.fill('#field-body', 'Bring more hay next time.');
    await page.click('form[action$="/comments"] button[type=submit]');
    await page.waitForURL(`${postUrl}#comments`);
    expect(await page.locator('.flash.success').textContent()).toContain('Your comment was added.');
    expect(await page.locator('#comments').textContent()).toBe('Comments (1)');
    expect(await page.locator('.comments li').textContent()).toContain('Bring more hay next time.');
    expect(await page.locator('.comments li strong').textContent()).toBe('ada');

    // Older posts by cursor: the second page continues where the first stopped.
    await page.goto(`${base}/`);
    const first = await page.locator('.post-list h2').allTextContents();
    expect(first).toHaveLength(10);
    await page.click('a[rel=next]');
    const second = await page.locator('.post-list h2').allTextContents();
    expect(second).toEqual([3, 2, 1].map((n) => `Notes from the workshop, part ${n}`));
    expect(first.filter((title) => second.includes(title))).toEqual([]);
    await page.close();
  }, 120_000);

  it('every blog page fits 375 px and 1280 px with no serious or critical axe violation', async () => {
    await chromium.context.clearCookies(); // signed out: the first test's session is gone
    const page = await chromium.context.newPage();
    await checkPage(page, `${base}/`, 'front-anonymous');
    expect(await page.locator('main a[href="/login"]').count()).toBeGreaterThan(0);
    await checkPage(page, `${base}/?search=part%201`, 'front-search');
    const [post] = await page
      .locator('.post-list h2 a')
      .evaluateAll((links) => links.map((a) => a.getAttribute('href')));
    await checkPage(page, `${base}${post}`, 'post-anonymous');

    const user = await t.createUser({ username: 'lin' });
    await signInOnPage(page, base, { email: user.email, password: TEST_PASSWORD }, '/');
    await checkPage(page, `${base}/`, 'front-signed-in');
    await checkPage(page, `${base}/my/posts`, 'my-posts-empty');
    await checkPage(page, `${base}/my/posts/new`, 'new-post');
    await page.fill('#field-title', 'A draft with a rather long title that has to wrap on a phone screen');
    await page.fill('#field-body', 'Draft text.');
    await page.click('form[action="/my/posts"] button[type=submit]');
    await page.waitForURL(`${base}/my/posts`);
    await checkPage(page, `${base}/my/posts`, 'my-posts');
    const edit = await page.locator('a', { hasText: 'Edit' }).first().getAttribute('href');
    await checkPage(page, `${base}${edit}`, 'edit-post');
    await checkPage(page, `${base}${post}`, 'post-signed-in');

    // A refused form: the errors beside their fields, still clean.
    await page.setViewportSize({ width: 375, height: 900 });
    await page.goto(`${base}${edit}`);
    await page.fill('#field-title', 'ab');
    await page.evaluate(() =>
      document.querySelector('main form[method=post]')!.setAttribute('novalidate', ''),
    );
    await page.click('main form[method=post] button[type=submit]');
    await page.waitForSelector('#field-title-error');
    expect(await page.locator('#field-title').getAttribute('aria-invalid')).toBe('true');
    await page.screenshot({ path: `${SHOTS}/edit-post-error-375.png`, fullPage: true });
    await page.close();
  }, 180_000);
});
