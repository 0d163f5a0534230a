// Dialect-independent: pages in a browser; `npm test` runs it with the first database only.
// citadel/client in Chromium: the client bundled by esbuild (minified, as an application would ship
// it) and loaded by a page of the server's own origin; the browser's cookies carry the session.
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable } from '../support/services.ts';
import { launchChromium, startListeningTestApp, type ChromiumSession } from '../support/browser.ts';
import { TEST_PASSWORD, type TestApp } from '../support/app.ts';
import { blogApi } from '../../examples/blog/api.ts';
import { blogMigrations } from '../../examples/blog/migrations.ts';

/** Minified ESM bundle of `citadel/client` for browsers. */
async function bundle(): Promise<string> {
  const result = await build({
    entryPoints: ['src/client/index.ts'],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}

/** The page's script: the client against its own origin, exposed for the test to drive. */
const PAGE_SCRIPT = `import { createClient } from '/__client/citadel-client.js';
window.citadel = createClient({ baseUrl: location.origin });
document.body.dataset.ready = 'yes';`;

describe('citadel/client bundle', () => {
  it('is small: minified and gzipped sizes', async () => {
    const code = await bundle();
    const minified = Buffer.byteLength(code);
    const gzipped = gzipSync(code).length;
    console.log(`citadel/client bundle: ${minified} bytes minified, ${gzipped} bytes gzipped`);
    expect(minified).toBeLessThan(10_000);
    // No server code was pulled in (Fastify, Kysely, TypeBox at run time).
    expect(code).not.toMatch(/fastify|kysely|TypeBox|sinclair/i);
  });
});

describe.skipIf(!chromiumAvailable())('citadel/client in Chromium', () => {
  let t: TestApp;
  let base: string;
  let chromium: ChromiumSession;

  beforeAll(async () => {
    const code = await bundle();
    ({ t, base } = await startListeningTestApp({
      api: blogApi,
      migrations: blogMigrations,
      routes(app) {
        app.get('/__client/citadel-client.js', (_, reply) => reply.type('text/javascript').send(code));
        app.get('/__client/page.js', (_, reply) => reply.type('text/javascript').send(PAGE_SCRIPT));
        app.get('/__client/', (_, reply) =>
          reply
            .type('text/html')
            .send(
              '<!doctype html><title>client</title><script type="module" src="/__client/page.js"></script>',
            ),
        );
      },
    }));
    chromium = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await chromium?.close();
    await t?.close();
  });

  it('registers, stays signed in by cookie, writes and reads posts, signs out', async () => {
    const page = await chromium.context.newPage();
    await page.goto(`${base}/__client/`);
    await page.waitForFunction(() => document.body?.dataset.ready === 'yes');
    const result = await page.evaluate(async (password) => {
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the page's global, set by PAGE_SCRIPT
      const client = (window as any).citadel;
      const registered = await client.auth.register({
        username: 'browserclient',
        email: 'browser-client@example.com',
        password,
        password_confirm: password,
      });
      const me = await client.auth.me();
      const created = await client.api.v1.posts.create({ title: 'From the browser', body: 'Hello' });
      const listed = await client.api.v1.posts.list({ fields: ['title'], derive: ['author'] });
      const tokens = await client.auth.tokens.create({ name: 'x', abilities: ['*'] });
      await client.auth.logout();
      const after = await client.auth.me();
      return {
        registered: registered.data?.action,
        me: me.data?.user.username,
        created: created.data?.title,
        listed: listed.data?.map((post: { title: string; author: { username: string } }) => [
          post.title,
          post.author.username,
        ]),
        total: listed.pagination?.total,
        sudo: tokens.error?.action,
        after: after.error?.status,
        cookieVisible: document.cookie.includes('citadel_session'),
      };
    }, TEST_PASSWORD);
    expect(result).toEqual({
      registered: 'register.attempt',
      me: 'browserclient',
      created: 'From the browser',
      listed: [['From the browser', 'browserclient']],
      total: 1,
      sudo: 'sudo.required',
      after: 401,
      // HttpOnly: the session cookie is sent by the browser, never readable by the page.
      cookieVisible: false,
    });
  });

  it('follows a live list in the browser: the stream carries the session cookie and yields typed events', async () => {
    await t.createUser({ username: 'browserlive', email: 'browserlive@example.com' });
    const writer = await t.createUser({ username: 'browserwriter' });
    const { token } = await t.services.tokens.issue({
      userId: writer.id,
      name: 'writer',
      abilities: ['*'],
      expiresAt: null,
    });
    const page = await chromium.context.newPage();
    await page.goto(`${base}/__client/`);
    await page.waitForFunction(() => document.body?.dataset.ready === 'yes');
    // The page signs in (its cookie) and waits on its stream; this test writes as another session.
    const first = page.evaluate(async (password) => {
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the page's global, set by PAGE_SCRIPT
      const client = (window as any).citadel;
      await client.auth.login({ email: 'browserlive@example.com', password });
      const stream = client.api.v1.posts.live({ fields: ['title'] });
      const events: unknown[] = [];
      (window as unknown as { liveStream: unknown }).liveStream = stream;
      for await (const event of stream) {
        events.push({ type: event.type, title: event.data.record?.title });
        if (events.length === 3) break;
      }
      return events;
    }, TEST_PASSWORD);
    // Until the stream is in the server's feed: its position block moved lastEventId.
    await page.waitForFunction(
      () =>
        ((window as unknown as { liveStream?: { lastEventId: string } }).liveStream?.lastEventId ?? '') !==
        '',
    );
    const author = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const posted = await fetch(`${base}/api/v1/posts`, {
      method: 'POST',
      headers: author,
      body: JSON.stringify({ title: 'Live to the browser', body: 'Hi', status: 'published' }),
    });
    const id = ((await posted.json()) as { data: { id: string } }).data.id;
    // A draft: the browser's user may not read it, so it sends nothing.
    await fetch(`${base}/api/v1/posts`, {
      method: 'POST',
      headers: author,
      body: JSON.stringify({ title: 'Someone else’s draft', body: 'Hi' }),
    });
    await fetch(`${base}/api/v1/posts/${id}`, {
      method: 'PATCH',
      headers: author,
      body: JSON.stringify({ title: 'Live to the browser, edited' }),
    });
    // The browser user's own draft: only a stream with their session may carry it.
    await page.evaluate(async () => {
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the page's global, set by PAGE_SCRIPT
      await (window as any).citadel.api.v1.posts.create({ title: 'My own draft', body: 'Mine' });
    });
    expect(await first).toEqual([
      { type: 'created', title: 'Live to the browser' },
      { type: 'updated', title: 'Live to the browser, edited' },
      { type: 'created', title: 'My own draft' },
    ]);
    await page.close();
  });
});
