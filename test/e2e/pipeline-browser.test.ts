// Dialect-independent: pages in a browser; `npm test` runs it with the first database only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable } from '../support/services.ts';
import {
  startListeningTestApp,
  launchChromium,
  type ChromiumSession,
  signInOnPage,
} from '../support/browser.ts';
import type { BrowserContext } from 'playwright-core';
import { TEST_PASSWORD, type TestApp } from '../support/app.ts';
import { MailCapture, codeIn, linkIn } from '../support/mail.ts';
import { acceptTermsAction } from '../../examples/blog/actions/accept-terms.ts';

describe.skipIf(!chromiumAvailable())('sign-in pipeline in Chromium', () => {
  let t: TestApp;
  let plain: TestApp;
  let base: string;
  let plainBase: string;
  let chromiumSession: ChromiumSession;
  let browser: BrowserContext;
  const mail = new MailCapture();

  beforeAll(async () => {
    await mail.start();
    ({ t, base } = await startListeningTestApp({
      sharedMail: mail,
      loginActions: ['email_2fa', 'accept_terms'],
      actions: [acceptTermsAction],
    }));
    // The plain AUTH_LOGIN_ACTIONS=email_2fa set-up, on its own port.
    ({ t: plain, base: plainBase } = await startListeningTestApp({
      sharedMail: mail,
      loginActions: ['email_2fa'],
    }));
    chromiumSession = await launchChromium();
    browser = chromiumSession.context;
  });

  afterAll(async () => {
    await chromiumSession?.close();
    await t?.close();
    await plain?.close();
    await mail.stop();
  });

  it('AUTH_LOGIN_ACTIONS=email_2fa: sign in, resend, type the newest code, land signed in', async () => {
    const user = await plain.createUser();
    await browser.clearCookies();
    const page = await browser.newPage();
    await signInOnPage(page, plainBase, { email: user.email, password: TEST_PASSWORD }, '/action/show');
    const first = codeIn(await mail.waitFor(user.email, { count: 1 }));

    plain.clock.advance(31);
    await page.click('form[action="/action/challenge"] button');
    await page.waitForSelector('text=A new code is on its way.');
    const second = codeIn(await mail.waitFor(user.email, { count: 2 }));
    if (first !== second) {
      await page.fill('#field-code', first);
      await page.click('#action-form button[type=submit]');
      await page.waitForSelector('text=The code is invalid or has expired.');
    }
    await page.fill('#field-code', second);
    await page.click('#action-form button[type=submit]');
    await page.waitForURL(`${plainBase}/`);
    expect(await page.textContent('main')).toContain(user.username);
    await page.close();
  });

  it('password, emailed code, terms: lands signed in', async () => {
    const user = await t.createUser();
    await browser.clearCookies();
    const page = await browser.newPage();
    await signInOnPage(page, base, { email: user.email, password: TEST_PASSWORD }, '/action/show');
    expect(await page.textContent('h1')).toContain('Enter the code we emailed you');

    // A wrong code first: the page says so and keeps asking.
    const code = codeIn(await mail.waitFor(user.email, { count: 1 }));
    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
    await page.fill('#field-code', wrong);
    await page.click('#action-form button[type=submit]');
    await page.waitForSelector('text=The code is invalid or has expired.');

    await page.fill('#field-code', code);
    await page.click('#action-form button[type=submit]');
    await page.waitForURL(`${base}/action/show`);
    expect(await page.textContent('h1')).toContain('Accept the terms of use');
    await page.check('#field-accept');
    await page.click('#action-form button[type=submit]');
    await page.waitForURL(`${base}/`);
    expect(await page.textContent('main')).toContain(user.username);
    await page.close();
  });

  it('magic link with email_2fa: the link, then the code, then signed in', async () => {
    const user = await t.createUser();
    await browser.clearCookies();
    const page = await browser.newPage();
    await page.goto(`${base}/magic-link`);
    await page.fill('#field-email', user.email);
    await page.click('form[action="/magic-link"] button[type=submit]');
    await page.waitForURL(`${base}/magic-link/sent`);
    expect(await page.textContent('h1')).toContain('Check your email');

    const link = linkIn(await mail.waitFor(user.email, { count: 1 }), `${base}/magic-link/verify/`);
    await page.goto(link);
    await page.waitForURL(`${base}/action/show`);
    const code = codeIn(await mail.waitFor(user.email, { count: 2 }));
    await page.fill('#field-code', code);
    await page.click('#action-form button[type=submit]');
    await page.waitForURL(`${base}/action/show`);
    await page.check('#field-accept');
    await page.click('#action-form button[type=submit]');
    await page.waitForURL(`${base}/`);
    expect(await page.textContent('main')).toContain(user.username);
    await page.close();
  });

  it('cancel on the code page returns to sign in, not signed in', async () => {
    const user = await t.createUser();
    await browser.clearCookies();
    const page = await browser.newPage();
    await signInOnPage(page, base, { email: user.email, password: TEST_PASSWORD }, '/action/show');
    await page.click('form[action="/action/cancel"] button');
    await page.waitForURL(`${base}/login`);
    await page.goto(`${base}/action/show`);
    await page.waitForURL(`${base}/login`);
    await page.close();
  });
});
