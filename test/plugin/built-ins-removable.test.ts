/**
 * Contract section 15: each built-in can be left out (`defaultPlugins({ magicLink: false })`).
 * Then its routes answer 404, no page links to them, its OpenAPI entries are gone, and everything
 * else keeps working; a built-in that others depend on cannot be left out alone: start-up stops
 * with one line naming what is missing.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILT_IN_PLUGIN_KEYS, defaultPlugins, type DefaultPluginOverrides } from '../../src/index.ts';
import { resolvePlugins } from '../../src/app/assembly.ts';
import { startTestApp, TEST_PASSWORD, type TestApp } from '../support/app.ts';
import { withDependents } from '../support/plugins.ts';
import { routePatterns } from '../support/routes.ts';

const PAGES = ['/', '/login', '/register', '/account', '/magic-link', '/forgot-password'];

/** Every href of the pages a signed-in and an anonymous browser see. */
async function linksOnPages(t: TestApp, signedIn: boolean): Promise<string[]> {
  const client = signedIn ? await t.signIn(await t.createUser()) : t.client();
  const links: string[] = [];
  for (const page of PAGES) {
    const response = await client.get(page, 'form');
    if (response.status !== 200) continue;
    for (const match of response.text.matchAll(/href="([^"#?]*)/g)) links.push(match[1]!);
  }
  return links;
}

/** Route patterns (`/tokens/:id`), HEAD aside. */
function paths(app: FastifyInstance): Set<string> {
  return new Set(routePatterns(app).map(([, path]) => path));
}

describe('every built-in can be left out (defaultPlugins overrides)', () => {
  let full: TestApp;
  let fullPaths: Set<string>;
  beforeAll(async () => {
    full = await startTestApp();
    fullPaths = paths(full.app);
  });
  afterAll(async () => full?.close());

  it('a built-in others need cannot be left out alone: one line names what is missing', () => {
    expect(() => resolvePlugins({ plugins: defaultPlugins({ sudo: false }) })).toThrow(
      /^plugins are missing what others depend on: "tokens" needs "sudo", "password" needs "sudo", "factors" needs "sudo", "account-center" needs "sudo", "admin" needs "sudo"$/,
    );
    expect(() => defaultPlugins({ nope: false } as never)).toThrow(/no built-in plugin "nope"/);
  });

  for (const key of BUILT_IN_PLUGIN_KEYS) {
    it(
      `without ${key}: its routes 404, no page links to them, the rest works`,
      { timeout: 60_000 },
      async () => {
        const left = withDependents(key);
        const overrides: DefaultPluginOverrides = Object.fromEntries(left.map((k) => [k, false]));
        const t = await startTestApp({ plugins: defaultPlugins(overrides) });
        try {
          const remaining = paths(t.app);
          const gone = [...fullPaths].filter((path) => !remaining.has(path));
          // Each left-out plugin took routes with it (every built-in serves at least one).
          expect(gone.length, `${left.join(', ')} left no route behind`).toBeGreaterThan(0);
          for (const path of gone) {
            const url = path.replace(/:file/, 'swagger-ui.css').replace(/:[a-z]+/gi, '1');
            const response = await t.app.inject({ method: 'GET', url });
            expect([404, 405], `GET ${path}`).toContain(response.statusCode);
          }
          // No page links to what is gone.
          for (const signedIn of [false, true]) {
            if (signedIn && left.includes('accounts')) continue;
            for (const href of await linksOnPages(t, signedIn))
              expect(gone, `a page links to ${href}`).not.toContain(href);
          }
          // Its OpenAPI entries are gone; the document lists what remains.
          const document = (await t.app.inject({ method: 'GET', url: '/docs' })).json();
          for (const path of Object.keys(document.paths))
            expect(gone, `/docs still lists ${path}`).not.toContain(path.replace(/\{(\w+)\}/g, ':$1'));
          // Everything else works: who is signed in, and (with accounts) a sign-in.
          const user = await t.createUser();
          if (!left.includes('accounts')) {
            const client = t.client();
            const login = await client.post('/login', { email: user.email, password: TEST_PASSWORD });
            expect(login.status, login.text).toBe(200);
            expect((await client.get('/me')).body.user.email).toBe(user.email);
          }
          expect((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
        } finally {
          await t.close();
        }
      },
    );
  }
});
