/**
 * Contract section 14: no endpoint answers 500 to a well-formed request of any content type, and
 * the JSON-only endpoints (the passkey ceremonies) answer any other body with 415 and the usual
 * envelope. Every route of Fastify's route table (so a new route joins by itself) receives every
 * body kind below, from an anonymous and a signed-in client, asking for JSON and for HTML.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertPosts, startBlogApp, type BlogApp } from '../support/api-app.ts';
import { assertNoSecretsLeaked, type TestClient } from '../support/client.ts';
import { routeTable } from '../support/routes.ts';
import { startTestApp, type TestApp } from '../support/app.ts';

const part = (name: string, value: string) =>
  `--b\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;

/** [Content-Type, body]: undefined means "not sent". */
const BODIES: [string | undefined, string | undefined][] = [
  [undefined, undefined],
  [undefined, 'a=1'],
  ['application/json', '{"a":1}'],
  ['application/json', ''],
  ['application/json', '   '],
  ['application/json; charset=utf-8', '{"a":1}'],
  ['application/json;charset=UTF-8', '{"response":{"id":"x"}}'],
  ['APPLICATION/JSON', '{}'],
  ['application/json', '[]'],
  ['application/json', '"x"'],
  ['application/json', 'null'],
  ['application/json', '3'],
  ['application/json', '{"a":'],
  ['application/x-www-form-urlencoded', 'a=1&b=2'],
  ['application/x-www-form-urlencoded', ''],
  ['application/x-www-form-urlencoded', 'response=x&proof=%7B%7D&a[b]=1&%%%'],
  ['application/x-www-form-urlencoded; charset=utf-8', 'email=a%40b.example'],
  ['multipart/form-data; boundary=b', `${part('a', '1')}--b--\r\n`],
  ['multipart/form-data; boundary=b', `${part('a', '1')}${part('a', '2')}--b--\r\n`],
  ['multipart/form-data; boundary=b', ''],
  // No boundary, a part cut short, a part without its header: the parser cannot read them (400).
  ['multipart/form-data', '--b\r\n'],
  ['multipart/form-data; boundary=', 'x'],
  ['multipart/form-data; boundary=b', part('a', '1')],
  ['multipart/form-data; boundary=b', '--b\r\n\r\nno header\r\n--b--\r\n'],
  ['text/plain', 'hello'],
  ['text/plain', ''],
  ['text/html', '<p>'],
  ['application/xml', '<a/>'],
  ['application/octet-stream', 'xx'],
  ['application/merge-patch+json', '{}'],
  ['', 'xx'],
  ['not a media type', 'xx'],
];

describe('every route, every content type: never a 5xx (contract section 14)', () => {
  let t: BlogApp;
  let member: TestClient;

  beforeAll(async () => {
    t = await startBlogApp();
    const author = await t.createUser();
    await insertPosts(t, author, [{ title: 'public one' }, { title: 'a draft', status: 'draft' }]);
    member = await t.signIn(await t.createUser());
  });
  afterAll(async () => t?.close());

  it(
    'each route × each body kind × anonymous and signed in × JSON and HTML',
    { timeout: 300_000 },
    async () => {
      const routes = routeTable(t.app);
      expect(routes.length).toBeGreaterThan(40);
      // Both sides of the account center and of sessions are in the table, and the passkey ceremonies.
      for (const path of ['/account/delete', '/sessions/revoke-others', '/passkey/login', '/account/events'])
        expect(routes.map(([, p]) => p)).toContain(path);
      const csrf = await member.csrfToken();
      const statuses = new Map<number, number>();
      const failures: string[] = [];
      for (const who of ['anonymous', 'member'] as const) {
        for (const accept of ['application/json', 'text/html']) {
          for (const [method, path] of routes) {
            // POST /logout and the revokes would end the member's session: it stays signed in elsewhere.
            for (const [type, payload] of BODIES) {
              if ((method === 'GET' || method === 'OPTIONS') && payload !== undefined) continue;
              const headers: Record<string, string> = { accept };
              if (type !== undefined) headers['content-type'] = type;
              if (who === 'member') {
                headers.cookie = [...member.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
                headers['x-csrf-token'] = csrf;
              }
              const response = await t.app.inject({ method: method as 'GET', url: path, headers, payload });
              statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
              const where = `${who} ${accept} ${method} ${path} ${type} ${JSON.stringify(payload)}`;
              if (response.statusCode >= 500) failures.push(`${response.statusCode} ${where}`);
              expect(response.body, where).not.toMatch(/Cannot read properties|is not a function|Multipart:/);
              assertNoSecretsLeaked(response.body, where);
            }
          }
        }
      }
      expect(failures).toEqual([]);
      // The walk reached handlers: answers of many kinds, 400 (unreadable bodies) and 415 among them.
      expect(statuses.get(400) ?? 0).toBeGreaterThan(0);
      expect(statuses.get(415) ?? 0).toBeGreaterThan(0);
      expect([...statuses.keys()].some((s) => s < 300)).toBe(true);
    },
  );

  it('an unreadable multipart body is a 400: the envelope on auth routes, problem details on the API', async () => {
    for (const type of ['multipart/form-data', 'multipart/form-data; boundary=b']) {
      const auth = await t.app.inject({
        method: 'POST',
        url: '/login',
        headers: { 'content-type': type, accept: 'application/json' },
        payload: type.endsWith('=b') ? part('email', 'a@b.example') : '--b\r\n',
      });
      expect(auth.statusCode).toBe(400);
      expect(auth.json()).toEqual({
        action: 'login.attempt',
        status: 'error',
        statusCode: 400,
        message: 'The request body is not valid multipart/form-data.',
      });
      const api = await t.app.inject({
        method: 'POST',
        url: '/api/v1/posts',
        headers: {
          'content-type': type,
          cookie: [...member.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
        },
        payload: '--b\r\n',
      });
      expect(api.statusCode).toBe(400);
      expect(api.headers['content-type']).toContain('application/problem+json');
      expect(api.json()).toMatchObject({
        status: 400,
        detail: 'The request body is not valid multipart/form-data.',
      });
    }
    // A well-formed multipart form still reaches the handler (here: the CSRF check, then sign-in).
    const csrf = await member.csrfToken();
    const ok = await t.app.inject({
      method: 'POST',
      url: '/forgot-password',
      headers: {
        'content-type': 'multipart/form-data; boundary=b',
        accept: 'application/json',
        cookie: [...member.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
      },
      payload: `${part('_csrf', csrf)}${part('email', 'nobody@example.com')}--b--\r\n`,
    });
    expect(ok.statusCode).toBe(200);
  });

  it('the passkey ceremonies are JSON only: 415 with the envelope, the error page for a form', async () => {
    for (const path of ['/passkey/login/options', '/passkey/login']) {
      const action = path.endsWith('options') ? 'passkey.options' : 'passkey.login';
      for (const [type, payload] of [
        ['application/x-www-form-urlencoded', 'response=%7B%7D'],
        ['multipart/form-data; boundary=b', `${part('response', '{}')}--b--\r\n`],
        ['text/plain', '{}'],
        ['application/xml', '<a/>'],
      ] as const) {
        const json = await t.app.inject({
          method: 'POST',
          url: path,
          headers: { 'content-type': type, accept: 'application/json' },
          payload,
        });
        expect(json.statusCode, `${path} ${type}`).toBe(415);
        expect(json.json(), `${path} ${type}`).toMatchObject({ action, status: 'error', statusCode: 415 });
        const form = await t.app.inject({
          method: 'POST',
          url: path,
          headers: { 'content-type': type, accept: 'text/html' },
          payload,
        });
        expect(form.statusCode, `${path} ${type}`).toBe(415);
        expect(form.headers['content-type']).toContain('text/html');
        expect(form.body).toContain('<!doctype html>');
      }
      // A bodyless post from a form client has no page to land on either.
      const bare = await t.app.inject({ method: 'POST', url: path, headers: { accept: 'text/html' } });
      expect(bare.statusCode).toBe(415);
    }
    // The JSON clients keep working, with or without a charset, with an empty JSON body, as an SPA.
    for (const headers of [
      { 'content-type': 'application/json; charset=utf-8', accept: 'application/json' },
      { 'content-type': 'application/json' },
      { 'x-spa': 'true' },
    ]) {
      const options = await t.app.inject({ method: 'POST', url: '/passkey/login/options', headers });
      expect(options.statusCode).toBe(200);
      expect(options.json().data.options.challenge).toEqual(expect.any(String));
    }
  });
});

describe('a page that cannot render', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      routes: (app) => {
        // A route whose page throws (a page without the props it needs, as the passkey routes had).
        const brokenPage = () => {
          throw new TypeError('internal detail of a broken page');
        };
        app.post(
          '/test/broken-page',
          { config: { action: 'test.broken', page: brokenPage } },
          async () => ({}),
        );
      },
    });
  });
  afterAll(async () => t?.close());

  it("answers the generic 500, never the error's message through Fastify's last resort", async () => {
    // No CSRF token: the refusal re-renders the route's page, which throws.
    const response = await t.app.inject({
      method: 'POST',
      url: '/test/broken-page',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
      payload: 'a=1',
    });
    expect(response.statusCode).toBe(500);
    expect(response.body).toBe('Something went wrong. Please try again later.');
    expect(response.headers['cache-control']).toBe('private, no-store');
    expect(response.headers['content-security-policy']).toBeDefined();
  });
});
