import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Page } from 'playwright-core';
import citadel from '../../src/fastify.ts';
import { field, form, html, layout } from '../../src/html.ts';
import demo from '../../examples/blog/citadel.config.ts';
import { createTestDatabase, type TestDatabase } from '../support/databases.ts';
import { MailCapture } from '../support/mail.ts';
import { TEST_PASSWORD, TEST_SECRET } from '../support/app.ts';
import { freePort, launchChromium, type ChromiumSession } from '../support/browser.ts';
import { chromiumAvailable } from '../support/services.ts';

/*
 * Citadel under `app.register(citadel, { prefix: '/auth' })` in a host application that already
 * has decorators of the same names (`config`, `db`, `request.session`, `request.caller`), with the
 * demo's resource API: every URL a page or the docs UI uses must carry the prefix, and the host's
 * decorators keep their values on the host's routes.
 */

const PREFIX = '/auth';
const SIGNED_OUT_PAGES = [
  '/',
  '/login',
  '/register',
  '/forgot-password',
  '/magic-link',
  '/reset-password?token=x',
];
const SIGNED_IN_PAGES = [
  '/',
  '/account',
  '/account/delete',
  '/account/events',
  '/sessions',
  '/two-factor',
  '/tokens',
  '/sudo?next=/tokens',
  '/set-password',
];

/**
 * An URL a page names is fine when it stays under the prefix (or is no request at all). A
 * query-only reference (the language switcher's `?lang=de`) is the current page's own path.
 */
function underPrefix(value: string): boolean {
  if (value.startsWith('data:') || value.startsWith('#') || value.startsWith('?')) return true;
  return value === PREFIX || value.startsWith(`${PREFIX}/`) || value.startsWith(`${PREFIX}?`);
}

async function hostApp(database: TestDatabase, mail: MailCapture, appUrl: string): Promise<FastifyInstance> {
  const host = Fastify({ logger: false });
  host.decorate('config', { hostSetting: 'kept' } as never);
  host.decorate('db', 'the host database' as never);
  // Like @fastify/session: the host's own request.session.
  host.decorateRequest('session', null as never);
  host.decorateRequest('caller', null as never);
  host.get('/host', async function (this: FastifyInstance, request) {
    return {
      config: this.config,
      db: this.db,
      session: (request as unknown as { session: unknown }).session,
    };
  });
  const { seed: _seed, ...app } = demo;
  await host.register(citadel, {
    ...app,
    prefix: PREFIX,
    env: {},
    logLevel: 'silent',
    seedDemo: false,
    databaseUrl: database.url,
    sessionSecret: TEST_SECRET,
    smtpUrl: mail.url,
    appUrl,
    dataDir: '/tmp/citadel-test-data',
    // A replaced page writes Citadel paths too: the prefix is added to it as to the built-in ones.
    pages: {
      magic_link: (ctx) =>
        layout(
          ctx,
          'Email me a link',
          html`<p id="own-magic-link"><a href="/login">Use a password</a></p>
            ${form(ctx, '/magic-link', field(ctx, { name: 'email', label: 'Email' }), 'Send')}`,
        ),
    },
  });
  await host.ready();
  return host;
}

/** Every href/src/action/formaction on a page, as written (getAttribute), from the markup. */
function linksIn(markup: string): string[] {
  return [...markup.matchAll(/\s(?:href|src|action|formaction)="([^"]*)"/g)].map((m) => m[1]!);
}

describe('embedded under a prefix, in a host with decorators of the same names', () => {
  let database: TestDatabase;
  let mail: MailCapture;
  let host: FastifyInstance;
  let cookie = '';

  beforeAll(async () => {
    database = await createTestDatabase();
    mail = await new MailCapture().start();
    host = await hostApp(database, mail, 'http://localhost:3000');
    const registered = await host.inject({
      method: 'POST',
      url: `${PREFIX}/register`,
      headers: { accept: 'application/json', 'content-type': 'application/json' },
      payload: {
        username: 'prefixed',
        email: 'prefixed@example.com',
        password: TEST_PASSWORD,
        password_confirm: TEST_PASSWORD,
      },
    });
    expect(registered.statusCode, registered.body).toBeLessThan(300);
    const login = await host.inject({
      method: 'POST',
      url: `${PREFIX}/login`,
      headers: { accept: 'application/json', 'content-type': 'application/json' },
      payload: { email: 'prefixed@example.com', password: TEST_PASSWORD },
    });
    expect(login.statusCode, login.body).toBe(200);
    cookie = `citadel_session=${login.cookies.find((c) => c.name === 'citadel_session')!.value}`;
  });
  afterAll(async () => {
    await host?.close();
    await mail?.stop();
    await database?.drop();
  });

  it("the host's decorators keep their values on the host's routes", async () => {
    const answer = await host.inject({ url: '/host', headers: { cookie } });
    expect(answer.json()).toEqual({
      config: { hostSetting: 'kept' },
      db: 'the host database',
      session: null,
    });
    const me = await host.inject({ url: `${PREFIX}/me`, headers: { accept: 'application/json', cookie } });
    expect(me.json().user.username).toBe('prefixed');
  });

  it('every link, form action, script and stylesheet of every page carries the prefix', async () => {
    const visits = [
      ...SIGNED_OUT_PAGES.map((path) => ({ path, cookie: undefined })),
      ...SIGNED_IN_PAGES.map((path) => ({ path, cookie })),
      { path: '/no-such-page', cookie: undefined },
    ];
    for (const visit of visits) {
      const page = await host.inject({
        url: PREFIX + visit.path,
        headers: { accept: 'text/html', ...(visit.cookie ? { cookie: visit.cookie } : {}) },
      });
      expect(page.headers['content-type'], visit.path).toContain('text/html');
      const links = linksIn(page.body);
      expect(links.length, visit.path).toBeGreaterThan(0);
      if (visit.path === '/magic-link') {
        expect(page.body).toContain('<p id="own-magic-link"><a href="/auth/login">');
        expect(page.body).toContain('action="/auth/magic-link"');
      }
      expect(
        links.filter((link) => !underPrefix(link)),
        `${visit.path} (${page.statusCode})`,
      ).toEqual([]);
    }
  });

  it('the docs UI page, its assets and the OpenAPI servers carry the prefix', async () => {
    const ui = await host.inject({ url: `${PREFIX}/api/v1/docs/ui` });
    expect(ui.statusCode).toBe(200);
    const links = linksIn(ui.body);
    expect(links.length).toBeGreaterThan(2);
    expect(links.filter((link) => !underPrefix(link))).toEqual([]);
    expect(ui.body).toContain(`data-url="${PREFIX}/api/v1/docs"`);
    for (const link of links.filter((l) => l.includes('/assets/')))
      expect((await host.inject({ url: link })).statusCode, link).toBe(200);
    const document = await host.inject({ url: `${PREFIX}/api/v1/docs` });
    expect(document.json().servers).toEqual([{ url: `${PREFIX}/api/v1` }]);
  });
});

describe.skipIf(!chromiumAvailable())('embedded under a prefix, in Chromium', () => {
  let database: TestDatabase;
  let mail: MailCapture;
  let host: FastifyInstance;
  let chromium: ChromiumSession;
  let base: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    mail = await new MailCapture().start();
    const port = await freePort();
    base = `http://localhost:${port}`;
    host = await hostApp(database, mail, base);
    await host.listen({ port, host: '127.0.0.1' });
    chromium = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await chromium?.close();
    await host?.close();
    await mail?.stop();
    await database?.drop();
  });

  /** Every request the page makes to this server, with its status. */
  function watch(page: Page): { path: string; status: number }[] {
    const seen: { path: string; status: number }[] = [];
    page.on('response', (response) => {
      const url = new URL(response.url());
      if (url.origin === base) seen.push({ path: url.pathname, status: response.status() });
    });
    return seen;
  }

  it('pages, their scripts and the passkey script call only URLs under the prefix', async () => {
    const page = await chromium.context.newPage();
    const seen = watch(page);
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));

    await page.goto(`${base}${PREFIX}/register`);
    await page.fill('#field-username', 'browser user');
    await page.fill('#field-email', 'browser@example.com');
    await page.fill('#field-password', TEST_PASSWORD);
    await page.fill('#field-password_confirm', TEST_PASSWORD);
    await Promise.all([
      page.waitForURL(`${base}${PREFIX}/`),
      page.click(`form[action="${PREFIX}/register"] button`),
    ]);

    // Signed in: every settings page, as the browser renders it.
    for (const path of SIGNED_IN_PAGES) {
      await page.goto(`${base}${PREFIX}${path}`, { waitUntil: 'networkidle' });
      const urls = await page.$$eval('[href],[src],[action],[formaction]', (elements) =>
        elements.flatMap((e) =>
          ['href', 'src', 'action', 'formaction'].flatMap((name) => e.getAttribute(name) ?? []),
        ),
      );
      expect(
        urls.filter((url) => !underPrefix(url)),
        path,
      ).toEqual([]);
    }

    // The passkey settings script calls under the prefix; without sudo it sends the browser to
    // the sudo page under the prefix, with `next` inside Citadel.
    await page.goto(`${base}${PREFIX}/two-factor`, { waitUntil: 'networkidle' });
    await page.fill('#passkey-name', 'Laptop');
    const enroll = page.waitForResponse((r) => r.url().endsWith('/two-factor/enroll/start'));
    await Promise.all([page.waitForURL(/\/sudo\?next=/), page.click('#passkey-register')]);
    expect(new URL((await enroll).url()).pathname).toBe(`${PREFIX}/two-factor/enroll/start`);
    expect(new URL(page.url()).pathname).toBe(`${PREFIX}/sudo`);
    expect(new URL(page.url()).searchParams.get('next')).toBe('/two-factor');
    await expect.poll(() => page.locator('h1').innerText()).toBe('Confirm it is you');
    // Confirming comes back to the page that asked, under the prefix.
    await page.fill('#sudo-password input[name="proof"]', TEST_PASSWORD);
    await Promise.all([
      page.waitForURL(`${base}${PREFIX}/two-factor`),
      page.click('#sudo-password button[type=submit]'),
    ]);
    // In sudo mode the sudo page offers "Continue", under the prefix too.
    await page.goto(`${base}${PREFIX}/sudo?next=/tokens`);
    expect(await page.getAttribute('#sudo-continue', 'href')).toBe(`${PREFIX}/tokens`);

    // The passkey sign-in script asks the server under the prefix for its options.
    await page.goto(`${base}${PREFIX}/logout`).catch(() => undefined);
    await page.context().clearCookies();
    await page.goto(`${base}${PREFIX}/login`, { waitUntil: 'networkidle' });
    const options = page.waitForResponse((r) => r.url().endsWith('/passkey/login/options'));
    await page.click('#passkey-login');
    const answer = await options;
    expect(new URL(answer.url()).pathname).toBe(`${PREFIX}/passkey/login/options`);
    expect(answer.status()).toBe(200);

    expect(seen.filter((r) => !r.path.startsWith(`${PREFIX}/`) && r.path !== PREFIX)).toEqual([]);
    // The only refusal: enrolling a passkey without sudo (403, as it should).
    expect(seen.filter((r) => r.status >= 400)).toEqual([
      { path: `${PREFIX}/two-factor/enroll/start`, status: 403 },
    ]);
    expect(errors).toEqual([]);
  });

  it('the docs UI loads under the prefix and lists the operations', async () => {
    const page = await chromium.context.newPage();
    const seen = watch(page);
    const response = await page.goto(`${base}${PREFIX}/api/v1/docs/ui`, { waitUntil: 'networkidle' });
    expect(response?.status()).toBe(200);
    await page.locator('#operations-tag-posts').waitFor();
    expect(seen.map((r) => r.path)).toContain(`${PREFIX}/api/v1/docs`);
    expect(seen.filter((r) => !r.path.startsWith(`${PREFIX}/`))).toEqual([]);
    expect(seen.filter((r) => r.status >= 400)).toEqual([]);
  });
});
