import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, TEST_PASSWORD, type TestApp } from '../../support/app.ts';
import { codeIn } from '../../support/mail.ts';
import { acceptTermsAction } from '../../../examples/blog/actions/accept-terms.ts';

describe('action pages for form clients', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ loginActions: ['email_2fa', 'accept_terms'], actions: [acceptTermsAction] });
  });
  afterAll(async () => t?.close());

  async function formLogin() {
    const user = await t.createUser();
    const browser = t.client();
    const login = await browser.post('/login', { email: user.email, password: TEST_PASSWORD }, 'form');
    expect(login.status).toBe(303);
    expect(login.location).toBe('/action/show');
    const code = codeIn(await t.mail.waitFor(user.email, { count: 1 }));
    return { user, browser, code };
  }

  it('shows the code page, re-shows it with the error on a wrong code (404), then goes on', async () => {
    const { user, browser, code } = await formLogin();
    const page = await browser.get('/action/show', 'form');
    expect(page.status).toBe(200);
    expect(page.text).toContain('Enter the code we emailed you');
    expect(page.text).toContain('name="code"');
    expect(page.text).toContain('action="/action/challenge"');
    expect(page.text).toContain('action="/action/cancel"');
    expect(page.text).toContain(`${user.email[0]}***@example.com`);

    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
    const failed = await browser.post('/action/handle', { code: wrong }, 'form');
    expect(failed.status).toBe(404);
    expect(failed.text).toContain('The code is invalid or has expired.');
    expect(failed.text).toContain('name="code"');

    const next = await browser.post('/action/handle', { code }, 'form');
    expect(next.status).toBe(303);
    expect(next.location).toBe('/action/show');

    const terms = await browser.get('/action/show', 'form');
    expect(terms.text).toContain('Accept the terms of use');
    expect(terms.text).toContain('name="accept"');
    expect(terms.text).not.toContain('action="/action/challenge"');

    const refused = await browser.post('/action/handle', {}, 'form');
    expect(refused.status).toBe(422);
    expect(refused.text).toContain('Please accept the terms of use to continue.');

    const done = await browser.post('/action/handle', { accept: '1' }, 'form');
    expect(done.status).toBe(303);
    expect(done.location).toBe('/');
    const home = await browser.get('/', 'form');
    expect(home.text).toContain(user.username);
  });

  it('resend too soon goes back to the code page with the reason', async () => {
    const { browser } = await formLogin();
    const soon = await browser.post('/action/challenge', {}, 'form');
    expect(soon.status).toBe(303);
    expect(soon.location).toBe('/action/show');
    expect((await browser.get('/action/show', 'form')).text).toContain('Please wait');
  });

  it('the fifth wrong code sends the browser back to sign in', async () => {
    const { browser, code } = await formLogin();
    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
    for (let i = 0; i < 4; i += 1)
      expect((await browser.post('/action/handle', { code: wrong }, 'form')).status).toBe(404);
    const last = await browser.post('/action/handle', { code: wrong }, 'form');
    expect(last.status).toBe(303);
    expect(last.location).toBe('/login');
    const show = await browser.get('/action/show', 'form');
    expect(show.status).toBe(303);
    expect(show.location).toBe('/login');
  });

  it('cancel from the page goes to /login and forgets the step', async () => {
    const { browser } = await formLogin();
    const cancel = await browser.post('/action/cancel', {}, 'form');
    expect(cancel.status).toBe(303);
    expect(cancel.location).toBe('/login');
    expect((await browser.get('/action/show', 'form')).status).toBe(303);
  });

  it('a form post without the CSRF token changes nothing', async () => {
    const { browser, code } = await formLogin();
    const forged = await browser.post('/action/handle', { code }, 'form', { csrf: false });
    expect(forged.status).toBe(403);
    expect((await browser.get('/action/show', 'form')).status).toBe(200);
  });
});
