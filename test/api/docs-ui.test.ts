// Dialect-independent: pages in a browser; `npm test` runs it with the first database only.
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable } from '../support/services.ts';
import { freePort, launchChromium, type ChromiumSession } from '../support/browser.ts';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import type { Kysely } from 'kysely';
import { startTestApp, type TestApp } from '../support/app.ts';
import demo from '../../examples/blog/citadel.config.ts';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
/** Screenshots are for a person to look at; they never go into the repository. */
const SHOTS = process.env.CITADEL_SHOTS_DIR ?? '/tmp/shots-34';

/** Every axe finding, whatever its impact, as `rule: targets`. */
async function axeFindings(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  const violations = (await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(): Promise<{ violations: unknown[] }> } }).axe;
    return (await axe.run()).violations;
  })) as { id: string; nodes: { target: string[] }[] }[];
  return violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** Opens one operation, presses "Try it out" and "Execute", and waits for the live answer. */
async function tryOperation(operation: Locator): Promise<void> {
  await operation.locator('.opblock-summary-control').click();
  await operation.getByRole('button', { name: 'Try it out' }).click();
  await operation.getByRole('button', { name: 'Execute' }).click();
  await operation.locator('.live-responses-table tr.response .response-col_status').first().waitFor();
  // The page as it settles: the pointer off the button and the buttons' CSS transitions (0.3 s)
  // over, so a check sees the colours a reader sees, not a frame of a fade on a busy machine.
  const page = operation.page();
  await page.mouse.move(0, 0);
  await page.evaluate(() => Promise.all(document.getAnimations().map((animation) => animation.finished)));
}

describe.skipIf(!chromiumAvailable())('API docs UI in Chromium (demo API)', () => {
  let t: TestApp;
  let base: string;
  let chromiumSession: ChromiumSession;
  let browser: BrowserContext;

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await startTestApp({ ...demo, appUrl: base });
    const author = await t.createUser();
    const now = new Date().toISOString();
    await (t.services.db as unknown as Kysely<Record<string, Record<string, unknown>>>)
      .insertInto('posts')
      .values([
        {
          title: 'Visible to all',
          body: 'Published body',
          status: 'published',
          author_id: author.id,
          created_at: now,
          updated_at: now,
        },
        {
          title: 'Hidden draft',
          body: 'Draft body',
          status: 'draft',
          author_id: author.id,
          created_at: now,
          updated_at: now,
        },
      ])
      .execute();
    await t.app.listen({ port, host: '127.0.0.1' });
    mkdirSync(SHOTS, { recursive: true });
    chromiumSession = await launchChromium();
    browser = chromiumSession.context;
  }, 60_000);

  afterAll(async () => {
    await chromiumSession?.close();
    await t?.close();
  });

  it('loads from this server only, lists the posts operations, and "Try it out" gets a 200', async () => {
    const page = await browser.newPage();
    const requests: string[] = [];
    const problems: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));

    const response = await page.goto(`${base}/api/v1/docs/ui`, { waitUntil: 'networkidle' });
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");

    // The posts operations, as the v1 document declares them: list, create, read, replace, update,
    // delete, and the live stream (posts are live in the demo).
    const posts = page.locator('#operations-tag-posts');
    await posts.waitFor();
    const operations = page.locator('.opblock-tag-section', { has: posts }).locator('.opblock-summary');
    await expect.poll(() => operations.count()).toBe(7);
    expect(await operations.filter({ hasText: '/posts/live' }).count()).toBe(1);
    const summaries = (await operations.allInnerTexts()).map((text) => text.replace(/\s+/g, ' '));
    for (const [verb, path] of [
      ['GET', '/posts'],
      ['POST', '/posts'],
      ['GET', '/posts/{id}'],
      ['PUT', '/posts/{id}'],
      ['PATCH', '/posts/{id}'],
      ['DELETE', '/posts/{id}'],
    ]) {
      expect(
        summaries.some((s) => s.startsWith(`${verb} ${path}`) || s.includes(`${verb} ${path} `)),
        `${verb} ${path} in ${summaries.join(' | ')}`,
      ).toBe(true);
    }
    await expect.poll(() => page.locator('#operations-tag-comments').count()).toBe(1);

    // Try it out → Execute on GET /posts: a live 200 from this server, with the published post only.
    const list = page.locator('#operations-posts-listPosts');
    await list.locator('.opblock-summary').first().click();
    await list.getByRole('button', { name: 'Try it out' }).click();
    await list.getByRole('button', { name: 'Execute' }).click();
    const live = list.locator('.live-responses-table tr.response .response-col_status');
    await live.first().waitFor();
    expect((await live.first().innerText()).trim()).toBe('200');
    const body = await list
      .locator('.live-responses-table tr.response .response-col_description pre')
      .first()
      .innerText();
    expect(body).toContain('Visible to all');
    expect(body).not.toContain('Hidden draft');
    expect(requests.some((url) => url.startsWith(`${base}/api/v1/posts`))).toBe(true);

    // Nothing left the machine, and nothing was refused by the CSP or failed in the page.
    expect(requests.length).toBeGreaterThan(3);
    for (const url of requests) {
      const { protocol, hostname } = new URL(url);
      if (protocol === 'data:') continue;
      expect(['127.0.0.1', 'localhost'], url).toContain(hostname);
    }
    expect(problems).toEqual([]);
    await page.close();
  });

  it('both docs pages look like the other pages: the layout font, axe-clean, no wider than 375 or 1280 px', async () => {
    const page = await browser.newPage();
    for (const [name, path, open] of [
      ['auth-docs', '/docs/ui', '.opblock-post:has([data-path="/login"])'],
      ['api-docs', '/api/v1/docs/ui', '#operations-posts-listPosts'],
    ] as const) {
      for (const width of [375, 1280]) {
        await page.setViewportSize({ width, height: 900 });
        await page.goto(`${base}${path}`, { waitUntil: 'networkidle' });
        await page.locator('.opblock').first().waitFor();
        const family = await page.evaluate(() => getComputedStyle(document.body).fontFamily);
        expect(family).toMatch(/^system-ui\b/);
        const summaryFont = await page
          .locator('.opblock-summary-description')
          .first()
          .evaluate((e) => getComputedStyle(e).fontFamily);
        expect(summaryFont).toBe(family);
        const at = `${path} at ${width}px`;
        expect(await axeFindings(page), at).toEqual([]);
        await page.screenshot({ path: `${SHOTS}/${name}-${width}.png` });
        // One operation open, tried and answered: its parameters, body editor and answer too.
        await tryOperation(page.locator(open));
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        expect(overflow, `${at} is wider than the screen`).toBeLessThanOrEqual(0);
        expect(await axeFindings(page), `${at}, an operation tried`).toEqual([]);
        await page.locator(open).scrollIntoViewIfNeeded();
        await page.screenshot({ path: `${SHOTS}/${name}-${width}-tried.png` });
      }
    }
    await page.close();
  }, 180_000);

  it('names operations in plain English', async () => {
    const page = await browser.newPage();
    await page.goto(`${base}/api/v1/docs/ui`, { waitUntil: 'networkidle' });
    await page.locator('#operations-tag-posts').waitFor();
    const texts = await page
      .locator('#operations-posts-readPosts .opblock-summary-description')
      .allInnerTexts();
    expect(texts).toEqual(['Get a post']);
    const all = await page.locator('.opblock-summary-description').allInnerTexts();
    for (const summary of ['List posts', 'Create a post', 'Update a post', 'Delete a post', 'List comments'])
      expect(all).toContain(summary);
    expect(all.filter((text) => / one of |_/.test(text))).toEqual([]);
    await page.close();
  });

  it('serves v2 its own document: no comments there', async () => {
    const page = await browser.newPage();
    await page.goto(`${base}/api/v2/docs/ui`, { waitUntil: 'networkidle' });
    await page.locator('#operations-tag-posts').waitFor();
    expect(await page.locator('#operations-tag-comments').count()).toBe(0);
    await page.close();
  });
});
