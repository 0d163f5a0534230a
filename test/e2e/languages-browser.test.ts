// Dialect-independent: pages in a browser; `npm test` runs it with the first database only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable } from '../support/services.ts';
import { signInOnPage, startBrowserApp, type BrowserApp } from '../support/browser.ts';
import { checkPageAtWidths } from '../support/page-check.ts';
import { TEST_PASSWORD } from '../support/app.ts';

const SHOTS = process.env.CITADEL_SHOTS_DIR ?? '/tmp/shots-languages';

/** Pages of the shared frame and the converted pages, as a visitor and signed in. */
const VISITOR_PAGES = ['/login', '/register', '/no-such-page'];
const SIGNED_IN_PAGES = ['/set-password', '/account', '/sessions', '/two-factor', '/tokens'];

describe.skipIf(!chromiumAvailable())('pages in Arabic (right to left) and German (long words)', () => {
  let app: BrowserApp;
  beforeAll(async () => {
    app = await startBrowserApp({}, SHOTS);
  }, 60_000);
  afterAll(async () => app?.close());

  for (const lang of ['ar', 'de'] as const) {
    it(`${lang}: every page at 375 and 1280 px fits, has no axe violation of any impact, and says <html lang="${lang}" dir>`, async () => {
      const { t, base, browser } = app;
      await browser.clearCookies();
      const page = await browser.newPage();
      for (const path of VISITOR_PAGES)
        await checkPageAtWidths(page, `${base}${path}?lang=${lang}`, {
          name: `${lang}${path.replace(/\//g, '-')}`,
          shots: SHOTS,
          axe: 'all',
        });
      const user = await t.createUser();
      await signInOnPage(page, base, { email: user.email, password: TEST_PASSWORD }, '/');
      for (const path of SIGNED_IN_PAGES) {
        await checkPageAtWidths(page, `${base}${path}?lang=${lang}`, {
          name: `${lang}${path.replace(/\//g, '-')}`,
          shots: SHOTS,
          axe: 'all',
        });
        const frame = await page.evaluate(() => ({
          lang: document.documentElement.lang,
          dir: document.documentElement.dir,
          direction: getComputedStyle(document.body).direction,
          brandRight: document.querySelector('.brand')!.getBoundingClientRect().right,
          width: window.innerWidth,
        }));
        expect(frame.lang).toBe(lang);
        expect(frame.dir).toBe(lang === 'ar' ? 'rtl' : 'ltr');
        expect(frame.direction).toBe(lang === 'ar' ? 'rtl' : 'ltr');
        // The header mirrors: the brand starts at the right edge in Arabic, at the left otherwise.
        if (lang === 'ar') expect(frame.brandRight).toBeGreaterThan(frame.width / 2);
        else expect(frame.brandRight).toBeLessThan(frame.width / 2);
      }
      await page.close();
    }, 180_000);
  }

  it('the switcher moves between languages and the choice sticks', async () => {
    const { base, browser } = app;
    await browser.clearCookies();
    const page = await browser.newPage();
    await page.goto(`${base}/login`);
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('en');
    await page.click('nav.languages a[hreflang="ar"]');
    await page.waitForURL(/lang=ar/);
    expect(await page.evaluate(() => document.documentElement.dir)).toBe('rtl');
    expect(await page.getAttribute('nav.languages a[aria-current]', 'hreflang')).toBe('ar');
    // Without ?lang= the cookie keeps Arabic.
    await page.goto(`${base}/register`);
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('ar');
    await page.click('nav.languages a[hreflang="de"]');
    await page.waitForURL(/lang=de/);
    await page.goto(`${base}/login`);
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('de');
    await page.close();
  }, 60_000);

  it('a refused form shows its field messages in the page language', async () => {
    const { t, base, browser } = app;
    await browser.clearCookies();
    const page = await browser.newPage();
    const user = await t.createUser();
    await signInOnPage(page, base, { email: user.email, password: TEST_PASSWORD }, '/');
    await page.goto(`${base}/set-password?lang=de`);
    await page.fill('#field-password', 'short');
    await page.fill('#field-password_confirm', 'other');
    await page.click('form[action="/set-password"] button[type=submit]');
    await page.waitForSelector('#field-password-error');
    expect(await page.textContent('#field-password-error')).toBe(
      'Das Passwort muss mindestens 8 Zeichen lang sein.',
    );
    expect(await page.textContent('#field-password_confirm-error')).toBe(
      'Die beiden Passwörter stimmen nicht überein.',
    );
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('de');
    await page.close();
  }, 60_000);
});
