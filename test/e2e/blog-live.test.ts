// Dialect-independent: pages in a browser; `npm test` runs it with the first database only.
/**
 * The demo blog's front page follows the posts' live route (examples/blog/pages/assets/live.js):
 * a post published through the API in another session appears at the top without a reload, an
 * edit changes it, unpublishing removes it. The page is checked at 375 px and 1280 px (nothing wider
 * than the screen, no serious axe finding) with the live post in it; screenshots are kept in
 * CITADEL_SHOTS_DIR (default /tmp/shots-blog-live).
 */
import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { chromiumAvailable } from '../support/services.ts';
import { launchChromium, startListeningTestApp, type ChromiumSession } from '../support/browser.ts';
import type { TestApp } from '../support/app.ts';
import { createClient } from '../../src/client/index.ts';
import { blogApi } from '../../examples/blog/api.ts';
import { blogMigrations } from '../../examples/blog/migrations.ts';
import { blogPages } from '../../examples/blog/pages/plugin.ts';
import { defaultPlugins } from '../../src/index.ts';
import type demoConfig from '../../examples/blog/citadel.config.ts';

const SHOTS = process.env.CITADEL_SHOTS_DIR ?? '/tmp/shots-blog-live';

describe.skipIf(!chromiumAvailable())('the demo blog front page, live', () => {
  let t: TestApp;
  let base: string;
  let chromium: ChromiumSession;
  let author: ReturnType<typeof createClient<typeof demoConfig>>;

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    ({ t, base } = await startListeningTestApp({
      api: blogApi,
      migrations: blogMigrations,
      plugins: [...defaultPlugins(), blogPages()],
    }));
    const user = await t.createUser({ username: 'grace' });
    const { token } = await t.services.tokens.issue({
      userId: user.id,
      name: 'writer',
      abilities: ['*'],
      expiresAt: null,
    });
    // The other session: an author writing through the API, not through this browser.
    author = createClient<typeof demoConfig>({ baseUrl: base, apiBaseUrl: '/api', token });
    await author.api.v1.posts.create({ title: 'An older post', body: 'Already here.', status: 'published' });
    chromium = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await chromium?.close();
    await t?.close();
  });

  /** The front page with its stream open (and a moment for the server to add it to the feed). */
  async function openFront(page: Page, width: number): Promise<void> {
    await page.setViewportSize({ width, height: 900 });
    await page.goto(`${base}/`);
    await page.waitForSelector('ul.post-list[data-live-state="open"]');
    await page.waitForTimeout(500);
    // A mark a reload would wipe out.
    await page.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true));
  }

  const titles = (page: Page) => page.locator('ul.post-list > li h2').allTextContents();

  it('a post published elsewhere appears at the top without a reload; edits follow; unpublished, it goes', async () => {
    const page = await chromium.context.newPage();
    await openFront(page, 1280);
    expect(await titles(page)).toEqual(['An older post']);

    const made = await author.api.v1.posts.create({
      title: 'Live from the workshop',
      body: 'Typed in another session. '.repeat(6),
      status: 'published',
    });
    const id = made.data!.id;
    const item = page.locator(`ul.post-list > li[data-id="${id}"]`);
    await item.waitFor({ timeout: 10_000 });
    expect(await titles(page)).toEqual(['Live from the workshop', 'An older post']);
    expect(await item.locator('.meta').textContent()).toMatch(
      /^by grace · [A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d\d\s[AP]M UTC$/,
    );
    expect(await item.locator('p:last-child').textContent()).toMatch(/^Typed in another session\..*…$/);
    expect(await item.locator('a').getAttribute('href')).toBe(`/posts/${id}`);
    expect(await page.locator('[data-live-status]').textContent()).toBe('New post: Live from the workshop');

    // A draft of the author's is never on the front page.
    await author.api.v1.posts.create({ title: 'Not yet', body: 'A draft.' });
    await author.api.v1.posts.update(id, { title: 'Live from the workshop, day two' });
    await page.waitForFunction(
      (selector) => document.querySelector(selector)?.textContent === 'Live from the workshop, day two',
      `ul.post-list > li[data-id="${id}"] h2 a`,
    );
    await author.api.v1.posts.update(id, { status: 'draft' });
    await item.waitFor({ state: 'detached', timeout: 10_000 });
    expect(await titles(page)).toEqual(['An older post']);
    expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(
      true,
    );
    await page.close();
  });

  it('at 375 px and 1280 px with a live post in it: fits the screen, no serious axe finding', async () => {
    const { readFileSync } = await import('node:fs');
    const { createRequire } = await import('node:module');
    const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
    for (const width of [375, 1280]) {
      const page = await chromium.context.newPage();
      await openFront(page, width);
      const made = await author.api.v1.posts.create({
        title: `Seen at ${width} px: a rather long title that has to wrap on a phone screen`,
        body: 'Arrived while the page was open.',
        status: 'published',
      });
      await page.locator(`ul.post-list > li[data-id="${made.data!.id}"]`).waitFor({ timeout: 10_000 });
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow, `wider than the screen at ${width}px`).toBeLessThanOrEqual(0);
      await page.evaluate(axeSource);
      const serious = await page.evaluate(async () => {
        const axe = (
          window as unknown as { axe: { run(): Promise<{ violations: { id: string; impact: string }[] }> } }
        ).axe;
        return (await axe.run()).violations
          .filter((v) => v.impact === 'serious' || v.impact === 'critical')
          .map((v) => v.id);
      });
      expect(serious).toEqual([]);
      await page.screenshot({ path: `${SHOTS}/front-live-${width}.png`, fullPage: true });
      await page.close();
    }
  });
});
