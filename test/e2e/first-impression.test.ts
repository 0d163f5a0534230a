// Dialect-independent: pages in a browser; `npm test` runs it with the first database only.
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { chromiumAvailable } from '../support/services.ts';
import { launchChromium, startListeningTestApp, type ChromiumSession } from '../support/browser.ts';
import { TEST_PASSWORD, type TestApp } from '../support/app.ts';
import { wordingFindings } from '../support/page-check.ts';

/** Issue 25 "First impression", seen in Chromium. */
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const SHOTS = process.env.CITADEL_SHOTS_DIR ?? '/tmp/shots-25';

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

const overlap = (a: Box, b: Box) =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

async function box(page: Page, selector: string): Promise<Box> {
  const found = await page.locator(selector).first().boundingBox();
  expect(found, selector).not.toBeNull();
  return found!;
}

/** At 375 px and 1280 px: nothing wider than the screen, no serious axe finding; a screenshot kept. */
async function checkPage(page: Page, url: string, name: string, go?: () => Promise<unknown>) {
  for (const width of [375, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    await (go ? go() : page.goto(url));
    await page.waitForLoadState('networkidle');
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow, `${name} at ${width}px is wider than the screen`).toBeLessThanOrEqual(0);
    await page.evaluate(AXE_SOURCE);
    const violations = (await page.evaluate(async () => {
      const axe = (window as unknown as { axe: { run(): Promise<{ violations: unknown[] }> } }).axe;
      return (await axe.run()).violations;
    })) as { id: string; impact: string | null }[];
    const bad = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id);
    expect(bad, `${name} at ${width}px`).toEqual([]);
    expect(await wordingFindings(page), `${name} at ${width}px`).toEqual([]);
    await page.screenshot({ path: `${SHOTS}/${name}-${width}.png`, fullPage: true });
  }
}

describe.skipIf(!chromiumAvailable())('first impression in Chromium', () => {
  let t: TestApp;
  let base: string;
  let chromium: ChromiumSession;
  let browser: BrowserContext;

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    ({ t, base } = await startListeningTestApp({}, 'localhost'));
    chromium = await launchChromium();
    browser = chromium.context;
  }, 60_000);

  afterAll(async () => {
    await chromium?.close();
    await t?.close();
  });

  it('pages render in the layout font stack, not the browser default (Times)', async () => {
    const page = await browser.newPage();
    await page.goto(`${base}/login`);
    const family = await page.evaluate(() => getComputedStyle(document.body).fontFamily);
    expect(family).toMatch(/^system-ui\b/);
    expect(family).toContain('"Segoe UI"');
    expect(family).not.toMatch(/times/i);
    await page.close();
  });

  it('the header fits at 375 px: one row signed out, two rows signed in, nothing overlapping', async () => {
    const page = await browser.newPage();
    await page.setViewportSize({ width: 375, height: 800 });
    await page.goto(`${base}/login`);
    const brand = await box(page, '.site-header .brand');
    for (const link of await page.locator('.site-header .links a').all()) {
      const b = (await link.boundingBox())!;
      expect(Math.abs(b.y + b.height / 2 - (brand.y + brand.height / 2))).toBeLessThan(4);
      expect(overlap(b, brand)).toBe(false);
    }

    const user = await t.createUser();
    await page.goto(`${base}/login`);
    await page.fill('#field-email', user.email);
    await page.fill('#field-password', TEST_PASSWORD);
    await page.click('form[action="/login"] button[type=submit]');
    await page.waitForURL(`${base}/`);
    const boxes = [
      await box(page, '.site-header .brand'),
      await box(page, '.site-header form[action="/logout"] button'),
      ...(await Promise.all(
        (await page.locator('.site-header .links a').all()).map(async (l) => (await l.boundingBox())!),
      )),
    ];
    expect(boxes).toHaveLength(6);
    for (let i = 0; i < boxes.length; i += 1)
      for (let j = i + 1; j < boxes.length; j += 1)
        expect(overlap(boxes[i]!, boxes[j]!), `${i} ${j}`).toBe(false);
    // The brand and "Sign out" share the first row; the four page links the second.
    const rows = new Set(boxes.map((b) => Math.round(b.y / 10)));
    expect(rows.size).toBe(2);
    const header = await box(page, '.site-header');
    expect(header.height).toBeLessThan(100);
    await page.close();
  });

  it('the pages of the issue are axe-clean at both widths; an unusable reset link draws no focus box', async () => {
    const page = await browser.newPage();
    await checkPage(page, `${base}/no-such-page`, 'not-found');
    await checkPage(page, `${base}/reset-password?token=bogus`, 'reset-invalid');
    expect(await page.locator('form[action="/reset-password"]').count()).toBe(0);
    expect(await page.evaluate(() => document.activeElement === document.body)).toBe(true);
    const user = await t.createUser();
    await checkPage(page, `${base}/magic-link/sent`, 'magic-link-sent', async () => {
      await page.goto(`${base}/magic-link`);
      await page.fill('#field-email', user.email);
      await page.click('form[action="/magic-link"] button[type=submit]');
      await page.waitForURL(`${base}/magic-link/sent`);
    });
    expect(await page.locator('.flash').count()).toBe(0);
    await page.close();
  }, 120_000);

  it('"Delete my account" and "Keep my account" have room between them', async () => {
    const page = await browser.newPage();
    const user = await t.createUser();
    await page.goto(`${base}/login`);
    await page.fill('#field-email', user.email);
    await page.fill('#field-password', TEST_PASSWORD);
    await page.click('form[action="/login"] button[type=submit]');
    await page.waitForURL(`${base}/`);
    for (const width of [375, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(`${base}/account/delete`);
      const remove = await box(page, 'form[action="/account/delete"] button');
      const keep = await box(page, 'a.button[href="/account"]');
      const apart =
        keep.y >= remove.y + remove.height
          ? keep.y - (remove.y + remove.height) // wrapped: one above the other
          : keep.x - (remove.x + remove.width);
      expect(apart, `at ${width}px`).toBeGreaterThanOrEqual(12);
      if (keep.y < remove.y + remove.height) expect(keep.y).toBeCloseTo(remove.y, 0); // one row, aligned
    }
    await page.close();
  });
});
