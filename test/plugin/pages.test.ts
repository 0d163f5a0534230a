import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtInPages, defaultPlugins, definePlugin, type PageReplacements } from '../../src/index.ts';
import { html, layout, form, field } from '../../src/html.ts';
import { pageReplacements } from '../../src/auth/pages.ts';
import { startTestApp, TEST_PASSWORD, type TestApp } from '../support/app.ts';

// An application's own sign-in page: its own markup, the same form fields the route reads.
const pages: PageReplacements = {
  error: (ctx) =>
    layout(ctx, 'Lost in the stacks', html`<p id="custom-error-page">${ctx.outcome?.statusCode}</p>`),
  login: (ctx) =>
    layout(
      ctx,
      'Welcome back to the library',
      html`<p id="custom-login">Providers: ${ctx.props.providers.length}</p>
        ${ctx.errors.credentials ? html`<p id="custom-error">${ctx.errors.credentials}</p>` : ''}
        ${form(
          ctx,
          '/login',
          html`${field(ctx, { name: 'email', label: 'Library card or email' })}
          ${field(ctx, { name: 'password', label: 'Secret', type: 'password' })}`,
          'Enter',
        )}`,
    ),
};

// A plugin that restyles registration by wrapping the built-in page.
const themePlugin = definePlugin({
  id: 'theme',
  pages: {
    register: async (ctx) => html`<div id="theme-wrapper">${builtInPages.register(ctx)}</div>`,
    // The configuration's own login page wins over this one.
    login: () => html`<p id="plugin-login">plugin login</p>`,
  },
});

describe('replacing built-in pages (`pages` in the config and in a plugin)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ pages, plugins: [...defaultPlugins(), themePlugin] });
  });
  afterAll(async () => t?.close());

  it('a browser gets the replaced login page; the configuration wins over the plugin', async () => {
    const page = await t.client().get('/login', 'form');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.text).toContain('<title>Welcome back to the library · Citadel</title>');
    expect(page.text).toContain('<p id="custom-login">Providers: 0</p>');
    expect(page.text).not.toContain('plugin-login');
    expect(page.text).not.toContain('Keep me signed in');
  });

  it('the replacement is also the page a failed form post shows, with the error', async () => {
    const user = await t.createUser();
    const failed = await t
      .client()
      .post('/login', { email: user.email, password: 'wrong password!' }, 'form');
    expect(failed.status).toBe(401);
    expect(failed.text).toContain('id="custom-login"');
    expect(failed.text).toMatch(/<p id="custom-error">[^<]+<\/p>/);
    expect(failed.text).toContain(`value="${user.email}"`);
  });

  it('signing in through the replaced page works (its form posts the fields the route reads)', async () => {
    const user = await t.createUser();
    const browser = t.client();
    const done = await browser.post('/login', { email: user.email, password: TEST_PASSWORD }, 'form');
    expect(done.status).toBe(303);
    expect((await browser.get('/me')).body.user.username).toBe(user.username);
  });

  it('JSON and SPA clients are unaffected: the same envelopes as without a replacement', async () => {
    const info = await t.client().get('/login');
    expect(info.headers['content-type']).toContain('application/json');
    expect(info.body).toMatchObject({ action: 'login.show', status: 'info' });
    expect(info.text).not.toContain('custom-login');
    const user = await t.createUser();
    const login = await t.client().post('/login', { email: user.email, password: TEST_PASSWORD });
    expect(login.status).toBe(200);
    expect(login.body).toMatchObject({ action: 'login.attempt', status: 'success' });
    const wrong = await t.client().post('/login', { email: user.email, password: 'nope nope nope' }, 'spa');
    expect(wrong.status).toBe(401);
    expect(wrong.text).not.toContain('custom-login');
  });

  it("a plugin's replacement is served, and can wrap the built-in page", async () => {
    const page = await t.client().get('/register', 'form');
    expect(page.status).toBe(200);
    expect(page.text).toMatch(/^<div id="theme-wrapper"><!doctype html>/);
    expect(page.text).toContain('action="/register"');
  });

  it('the error page is replaced too (a form client asking for a page that does not exist)', async () => {
    const page = await t.client().get('/no-such-page', 'form');
    expect(page.status).toBe(404);
    expect(page.text).toContain('<p id="custom-error-page">404</p>');
    expect((await t.client().get('/no-such-page')).body).toMatchObject({ statusCode: 404 });
  });

  it('pages that are not replaced stay the built-in ones', async () => {
    const page = await t.client().get('/forgot-password', 'form');
    expect(page.text).toContain('Forgot your password?');
    expect(page.text).not.toContain('theme-wrapper');
  });
});

describe('page replacements that cannot work stop start-up', () => {
  it('an unknown page name, naming the known ones; a replacement that is not a function', () => {
    expect(() => pageReplacements([], { loginn: () => html`x` } as unknown as PageReplacements)).toThrow(
      /the configuration replaces an unknown page "loginn" \(known: home, login, /,
    );
    const plugin = definePlugin({ id: 'typo', pages: { sign_in: () => html`x` } as PageReplacements });
    expect(() => pageReplacements([plugin], undefined)).toThrow(
      /plugin "typo" replaces an unknown page "sign_in"/,
    );
    expect(() => pageReplacements([], { login: 'x' } as unknown as PageReplacements)).toThrow(
      /the replacement of page "login" must be a function/,
    );
  });
});
