// Dialect-independent: pages in a browser; `npm test` runs it with the first database only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable } from '../support/services.ts';
import { freePort, launchChromium, type ChromiumSession } from '../support/browser.ts';
import type { BrowserContext } from 'playwright-core';
import type { Kysely } from 'kysely';
import { startTestApp, type TestApp } from '../support/app.ts';
import demo from '../../examples/blog/citadel.config.ts';

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

    // The posts operations, as the v1 document declares them.
    const posts = page.locator('#operations-tag-posts');
    await posts.waitFor();
    const operations = page.locator('.opblock-tag-section', { has: posts }).locator('.opblock-summary');
    await expect.poll(() => operations.count()).toBe(6);
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

  it('serves v2 its own document: no comments there', async () => {
    const page = await browser.newPage();
    await page.goto(`${base}/api/v2/docs/ui`, { waitUntil: 'networkidle' });
    await page.locator('#operations-tag-posts').waitFor();
    expect(await page.locator('#operations-tag-comments').count()).toBe(0);
    await page.close();
  });
});
