/**
 * Contract section 14: request data never reaches a prototype. Every route the server has (read
 * from Fastify's own route table, so a new route joins by itself) receives each shape of hostile
 * key — query names, bracket segments, JSON filters, JSON, form and multipart bodies, nested
 * writes — and afterwards nothing in the process has changed: Object.prototype and its friends
 * hold exactly the names they held, and control requests answer exactly as they did before.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertPosts, startBlogApp, type BlogApp } from '../support/api-app.ts';
import type { TestClient } from '../support/client.ts';
import { routeTable } from '../support/routes.ts';
import { TEST_SECRET } from '../support/app.ts';
import { SecretBox } from '../../src/core/crypto.ts';
import { blogApi } from '../../examples/blog/api.ts';
import { compileApi } from '../../src/api/resource/compile.ts';
import { parseFilters } from '../../src/api/request/filters.ts';
import { deploymentCodecs } from '../../src/api/resource/sqids.ts';
import { pickWritable } from '../../src/api/write/write-set.ts';
import { ForbiddenKeyError } from '../../src/core/request-keys.ts';

const RESERVED = ['__proto__', 'constructor', 'prototype'] as const;

/** The names each built-in prototype holds, to compare before and after. */
function prototypeNames(): string {
  return [Object.prototype, Array.prototype, Function.prototype, String.prototype]
    .map((proto) => Reflect.ownKeys(proto).map(String).sort().join(','))
    .join('|');
}

/** One hostile request: where the reserved key sits and how it is sent. */
interface Probe {
  query?: string;
  contentType?: string;
  payload?: string;
}

function probes(key: string, marker: string): Probe[] {
  const json = (value: unknown) => JSON.stringify(value).replaceAll('"KEY"', JSON.stringify(key));
  const multipart = (name: string) =>
    `--b\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${marker}\r\n--b--\r\n`;
  return [
    { query: `${key}[${marker}]=yes` },
    { query: `${key}=yes` },
    { query: `filter[${key}][${marker}]=yes` },
    { query: `filter[status][${key}][${marker}]=yes` },
    { query: `filter[or][0][${key}][${marker}]=yes` },
    { query: `filter[constructor][prototype][${marker}]=yes` },
    { query: `fields[${key}]=${marker}` },
    { query: `a[b][${key}][${marker}]=yes` },
    { query: `filter=${encodeURIComponent(json({ KEY: { [marker]: 'yes' } }))}` },
    { query: `filter=${encodeURIComponent(json({ or: [{ title: { KEY: { [marker]: 'yes' } } }] }))}` },
    { contentType: 'application/json', payload: json({ KEY: { [marker]: 'yes' } }) },
    { contentType: 'application/json', payload: json({ title: 't', comments: [{ KEY: { [marker]: 1 } }] }) },
    { contentType: 'application/json', payload: json([{ title: 't', KEY: { [marker]: 'yes' } }]) },
    { contentType: 'application/json', payload: json({ constructor: { prototype: { [marker]: 'yes' } } }) },
    { contentType: 'application/x-www-form-urlencoded', payload: `${key}[${marker}]=yes&${key}=yes` },
    { contentType: 'application/x-www-form-urlencoded', payload: `${key}=yes` },
    { contentType: 'multipart/form-data; boundary=b', payload: multipart(key) },
    // Bracket paths in a form or multipart key, each alone (the bare name is not beside them).
    { contentType: 'application/x-www-form-urlencoded', payload: `${key}[${marker}]=yes` },
    { contentType: 'application/x-www-form-urlencoded', payload: `a[${key}]=yes` },
    { contentType: 'application/x-www-form-urlencoded', payload: `a[${key}][prototype][${marker}]=yes` },
    { contentType: 'application/x-www-form-urlencoded', payload: `constructor[prototype][${marker}]=yes` },
    { contentType: 'multipart/form-data; boundary=b', payload: multipart(`${key}[${marker}]`) },
    { contentType: 'multipart/form-data; boundary=b', payload: multipart(`a[constructor][${key}]`) },
  ];
}

describe('request data never reaches a prototype (contract section 14)', () => {
  let t: BlogApp;
  let member: TestClient;
  let prober: TestClient;
  let controls: () => Promise<string[]>;

  beforeAll(async () => {
    t = await startBlogApp();
    const author = await t.createUser();
    await insertPosts(t, author, [{ title: 'public one' }, { title: 'a draft', status: 'draft' }]);
    member = await t.signIn(await t.createUser());
    // The probes go out on their own session: a harmless one may sign it out (POST /logout).
    prober = await t.signIn(await t.createUser());
    const anonymous = t.client();
    // What the process does for anyone: the answers must stay exactly these.
    controls = async () => {
      const answers = [
        await anonymous.get('/api/v1/posts'),
        await anonymous.get('/api/v1/posts?search=draft'),
        await member.get('/me'),
        // A form post without its CSRF token is refused (the flaw turned that check off).
        await member.post('/account/username', { username: 'renamed' }, 'form', { csrf: false }),
        await anonymous.get('/login', 'form'),
      ];
      return answers.map((r) =>
        `${r.status} ${r.location ?? ''} ${r.text}`
          .replace(/name="_csrf" value="[^"]*"/g, '')
          .replace(/"(created_at|updated_at|last_used_at|expires_at)":"[^"]*"/g, ''),
      );
    };
  });
  afterAll(async () => t?.close());

  it('every route, every key shape: refused, and the process unchanged', { timeout: 300_000 }, async () => {
    const routes = routeTable(t.app);
    expect(routes.length).toBeGreaterThan(40);
    const before = prototypeNames();
    const answersBefore = await controls();
    const csrf = await prober.csrfToken();
    let sent = 0;
    for (const key of RESERVED) {
      for (const [method, path] of routes) {
        const marker = `polluted_${sent}`;
        for (const probe of probes(key, marker)) {
          const body = method === 'GET' || method === 'DELETE' ? undefined : probe.payload;
          if (probe.payload && body === undefined) continue;
          const response = await t.app.inject({
            method: method as 'GET',
            url: probe.query ? `${path}?${probe.query}` : path,
            headers: {
              accept: 'application/json',
              cookie: [...prober.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
              ...(probe.contentType ? { 'content-type': probe.contentType } : {}),
              'x-csrf-token': csrf,
            },
            payload: body,
          });
          sent += 1;
          const where = `${method} ${path} ${probe.query ?? probe.payload}`;
          expect(response.statusCode, `${where}: ${response.body.slice(0, 200)}`).toBeLessThan(500);
          // A JSON filter is a filter only on a resource list; elsewhere it is an ignored value.
          const isList = method === 'GET' && /^\/api\/v\d+\/(?!docs$)[a-z]+$/.test(path);
          const keyIsData = probe.query?.startsWith('filter=') && !isList;
          // Problem details on the resource API and the probes (/healthz, /readyz); the auth envelope elsewhere.
          const resourceRoute = path.startsWith('/api/') && !/\/docs(\/|$)/.test(path);
          const plain = resourceRoute || /^\/(healthz|readyz|metrics)/.test(path);
          // A JSON-only route (the passkey ceremonies) refuses a non-JSON body unread: 415.
          const unreadBody =
            response.statusCode === 415 && !probe.contentType?.startsWith('application/json');
          if (!keyIsData && !unreadBody) expect(response.statusCode, where).toBe(plain ? 400 : 422);
          expect((Object.prototype as Record<string, unknown>)[marker], where).toBeUndefined();
          expect(({} as Record<string, unknown>)[marker], where).toBeUndefined();
        }
      }
    }
    expect(sent).toBeGreaterThan(1000);
    expect(prototypeNames()).toBe(before);
    expect(await controls()).toEqual(answersBefore);
  });

  it('the resource API names the parameter in a 400 problem; auth endpoints answer 422 errors.<field>', async () => {
    const api = await t.app.inject({ method: 'GET', url: '/api/v1/posts?filter[__proto__][x]=1' });
    expect(api.statusCode).toBe(400);
    expect(api.headers['content-type']).toContain('application/problem+json');
    expect(api.json().invalid_params).toEqual([{ name: 'filter[__proto__][x]', reason: expect.any(String) }]);

    const json = await t.app.inject({
      method: 'POST',
      url: '/api/v1/posts',
      headers: { 'content-type': 'application/json' },
      payload: '{"title":"t","constructor":{"prototype":{"x":1}}}',
    });
    expect(json.statusCode).toBe(400);
    expect(json.json().invalid_params[0].name).toBe('constructor');

    const filter = await t.app.inject({
      method: 'GET',
      url: `/api/v1/posts?filter=${encodeURIComponent('{"__proto__":{"x":{"eq":1}}}')}`,
    });
    expect(filter.statusCode).toBe(400);
    expect(filter.json().invalid_params[0].name).toBe('filter');

    const login = await t
      .client()
      .request('POST', '/login', 'json', undefined, { headers: { 'content-type': 'application/json' } });
    expect(login.status).toBe(422);
    const hostile = await t.app.inject({
      method: 'POST',
      url: '/login',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      payload: '{"email":"a@b.example","password":"x","__proto__":{"admin":true}}',
    });
    expect(hostile.statusCode).toBe(422);
    expect(Object.keys(hostile.json().errors)).toEqual(['__proto__']);

    const form = await t.app.inject({
      method: 'POST',
      url: '/forgot-password',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      payload: 'email=a%40b.example&prototype=1',
    });
    expect(form.statusCode).toBe(422);
    expect(Object.keys(form.json().errors)).toEqual(['prototype']);
  });

  it('form and multipart keys naming a reserved segment in brackets: 422 errors.<key> (auth), 400 naming it (API)', async () => {
    const names = [
      '__proto__[x]',
      'constructor[prototype][x]',
      'a[constructor][prototype]',
      'a[__proto__]',
      'a[b][prototype]',
    ];
    const multipart = (name: string) =>
      `--b\r\nContent-Disposition: form-data; name="${name}"\r\n\r\nyes\r\n--b--\r\n`;
    const csrf = await prober.csrfToken();
    const cookie = [...prober.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    for (const name of names) {
      for (const [contentType, payload] of [
        ['application/x-www-form-urlencoded', `email=a%40b.example&${encodeURIComponent(name)}=yes`],
        ['multipart/form-data; boundary=b', multipart(name)],
      ] as const) {
        const auth = await t.app.inject({
          method: 'POST',
          url: '/forgot-password',
          headers: { 'content-type': contentType, accept: 'application/json', cookie, 'x-csrf-token': csrf },
          payload,
        });
        expect(auth.statusCode, `${name} ${contentType}: ${auth.body}`).toBe(422);
        expect(Object.keys(auth.json().errors), name).toEqual([name]);
        // A form client gets the page again with the error, never a redirect.
        const page = await t.app.inject({
          method: 'POST',
          url: '/forgot-password',
          headers: { 'content-type': contentType, cookie, 'x-csrf-token': csrf },
          payload,
        });
        expect(page.statusCode, `${name} ${contentType} (form client)`).toBe(422);
        const api = await t.app.inject({
          method: 'POST',
          url: '/api/v1/posts',
          headers: { 'content-type': contentType, cookie, 'x-csrf-token': csrf },
          payload,
        });
        expect(api.statusCode, `${name} ${contentType} on the API: ${api.body}`).toBe(400);
        expect(api.headers['content-type']).toContain('application/problem+json');
        expect(api.json().invalid_params, name).toEqual([{ name, reason: expect.any(String) }]);
      }
    }
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it(
    'random key positions (fast-check): never a 5xx, never a changed prototype',
    { timeout: 120_000 },
    async () => {
      const before = prototypeNames();
      const segment = fc.oneof(
        fc.constantFrom(...RESERVED),
        fc.constantFrom('filter', 'fields', 'or', 'and', '0', 'title', 'status', 'eq', 'x'),
      );
      await fc.assert(
        fc.asyncProperty(
          fc.array(segment, { minLength: 1, maxLength: 5 }),
          fc.constantFrom('/api/v1/posts', '/api/v2/posts', '/api/v1/comments', '/login', '/me'),
          async (segments, path) => {
            const [first, ...rest] = segments;
            const name = first + rest.map((s) => `[${s}]`).join('');
            const response = await t.app.inject({ method: 'GET', url: `${path}?${name}=polluted` });
            expect(response.statusCode).toBeLessThan(500);
            expect(({} as Record<string, unknown>).polluted).toBeUndefined();
            if (segments.some((s) => (RESERVED as readonly string[]).includes(s)))
              expect([400, 401, 422]).toContain(response.statusCode);
          },
        ),
        { numRuns: 300 },
      );
      expect(prototypeNames()).toBe(before);
    },
  );
});

describe('the engine alone, without the request hook (defence in depth)', () => {
  const posts = compileApi(blogApi, 'sqlite').get('posts')!;
  const codecs = deploymentCodecs(new SecretBox(TEST_SECRET), { sqidsMinLength: 8 });

  it('the bracket-filter parser refuses a reserved segment before it builds anything', () => {
    for (const key of RESERVED) {
      for (const name of [`filter[${key}][x]`, `filter[or][0][${key}][x]`, `filter[status][${key}]`]) {
        expect(() => parseFilters(posts, { [name]: 'polluted' }, codecs, 'sqlite'), name).toThrow(
          ForbiddenKeyError,
        );
        expect(({} as Record<string, unknown>).x, name).toBeUndefined();
        expect(
          ({} as Record<string, unknown>)[key === '__proto__' ? 'x' : 'prototype'],
          name,
        ).toBeUndefined();
      }
    }
  });

  it('writes copy own keys only: an inherited property never becomes a column', () => {
    const inherited = Object.create({ status: 'published' }) as Record<string, unknown>;
    inherited.title = 'own';
    expect(pickWritable('sqlite', posts, inherited)).toEqual({ title: 'own' });
  });
});
