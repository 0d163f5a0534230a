/**
 * Contract section 6: no response ever contains a stack trace, SQL text, a password hash, a token
 * hash, a TOTP secret after enrollment, or a raw id of an obfuscated field, whatever a hostile
 * client sends to the auth routes and the resource API. (The test client already fails any
 * response holding an Argon2 hash or a 64-hex-digit digest.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertNoSecretsLeaked, type TestClient, type TestResponse } from '../support/client.ts';
import { startBlogApp, insertPosts, publicId, type BlogApp } from '../support/api-app.ts';
import { enrollTotp } from '../support/factors.ts';
import type { UserRecord } from '../../src/auth/core/users.ts';

const LEAKS: [string, RegExp][] = [
  ['stack trace', /\bat (?:async )?\S*\s*\(?(?:file:\/\/)?\/?[\w./-]+\.(?:ts|js|mjs|cjs):\d+/],
  ['stack trace', /node_modules|\/work\/|\/src\/\w+/],
  [
    'SQL text',
    /\bselect\b[^"]{0,200}\bfrom\b|\binsert\s+into\b|\bdelete\s+from\b|\bupdate\s+"?\w+"?\s+set\b/i,
  ],
  [
    'database error',
    /SQLITE_|\bER_[A-Z_]+|sqlstate|syntax error|\brelation "|duplicate key|constraint failed/i,
  ],
  ['password hash', /\$argon2/],
];

describe('no response leaks internals (contract section 6)', () => {
  let t: BlogApp;
  let user: UserRecord;
  let session: TestClient;
  let totpSecret: string;
  let postIds: number[];
  const seen: { where: string; text: string }[] = [];

  /** No 500 and no leak; `echo` is the client's own input, which an error may quote back. */
  function check(where: string, response: TestResponse, echo?: string): TestResponse {
    seen.push({ where, text: response.text });
    expect(response.status, `${where}: ${response.text.slice(0, 300)}`).toBeLessThan(500);
    let text = response.text;
    if (echo) {
      for (const form of [echo, JSON.stringify(echo).slice(1, -1)]) text = text.split(form).join('');
    }
    for (const [what, pattern] of LEAKS) {
      expect(text, `${what} in the response of ${where}`).not.toMatch(pattern);
    }
    expect(response.text, `TOTP secret in ${where}`).not.toContain(totpSecret);
    return response;
  }

  /** A raw body (possibly malformed) with `client`'s cookies, bypassing the test client's encoding. */
  async function raw(
    client: TestClient,
    method: string,
    url: string,
    payload: string,
    contentType = 'application/json',
    accept = 'application/json',
  ): Promise<TestResponse> {
    const cookie = [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const response = await t.app.inject({
      method: method as 'POST',
      url,
      payload,
      headers: { accept, 'content-type': contentType, ...(cookie ? { cookie } : {}) },
    });
    assertNoSecretsLeaked(response.body, `${method} ${url}`);
    return { status: response.statusCode, headers: response.headers, text: response.body, body: undefined };
  }

  beforeAll(async () => {
    t = await startBlogApp();
    user = await t.createUser();
    session = await t.signIn(user);
    totpSecret = (await enrollTotp(t, session)).secret;
    postIds = await insertPosts(t, user, [
      { title: 'Published one' },
      { title: 'Draft one', status: 'draft' },
    ]);
  });
  afterAll(async () => t?.close());

  it('malformed, oversized and wrongly typed JSON bodies on auth and API routes', async () => {
    const bodies = [
      '{"email": "a@b.c", "password": ',
      '{"email": {"$gt": ""}, "password": ["x"]}',
      '[1,2,3]',
      'null',
      '"just a string"',
      '{"title": 1e400, "body": 123456789012345678901234567890, "status": true}',
      `{"email": "${'a'.repeat(20_000)}@example.com", "password": "${'p'.repeat(20_000)}"}`,
      '{"__proto__": {"admin": true}, "constructor": {"prototype": {"admin": true}}}',
    ];
    const routes = [
      ['POST', '/login'],
      ['POST', '/register'],
      ['POST', '/forgot-password'],
      ['POST', '/magic-link'],
      ['POST', '/reset-password'],
      ['POST', '/sudo/verify'],
      ['POST', '/tokens'],
      ['POST', '/two-factor/enroll/confirm'],
      ['POST', '/api/v1/posts'],
      ['PATCH', `/api/v1/posts/${publicId(t, postIds[0]!)}`],
      ['POST', '/oauth2/token'],
      ['POST', '/oauth2/revoke'],
      ['POST', '/oauth2/introspect'],
      ['POST', '/oauth2/userinfo'],
      ['POST', '/oauth2/end-session'],
      ['POST', '/oauth2/authorize/consent'],
      ['POST', '/oauth2/register'],
      ['POST', '/admin/oauth/clients'],
      ['DELETE', '/account/apps/no-such-client'],
      ['PATCH', '/account'],
    ];
    for (const [method, url] of routes) {
      for (const payload of bodies) {
        for (const client of [t.client(), session]) {
          const response = await raw(client, method!, url!, payload);
          check(`${method} ${url} ${payload.slice(0, 40)}`, response);
        }
      }
    }
    // The prototype pollution attempt did nothing.
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });

  it('odd content types and broken encodings on auth and API routes', async () => {
    const cases: [string, string][] = [
      ['application/x-www-form-urlencoded', 'email=%zz&password=%E0%A4%A'],
      ['application/x-www-form-urlencoded', 'email[$ne]=1&password[]=a&password[]=b'],
      [
        'multipart/form-data; boundary=x',
        '--x\r\nContent-Disposition: form-data; name="email"\r\n\r\na\r\n--x--',
      ],
      ['text/plain', 'email=a&password=b'],
      [
        'application/xml',
        '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><x>&e;</x>',
      ],
      ['application/json; charset=utf-16', '{"email":"a"}'],
    ];
    for (const url of ['/login', '/register', '/tokens', '/api/v1/posts']) {
      for (const [type, payload] of cases) {
        for (const accept of ['application/json', 'text/html']) {
          const response = check(
            `POST ${url} as ${type} (${accept})`,
            await raw(session, 'POST', url, payload, type, accept),
          );
          expect(response.text).not.toContain('root:');
        }
      }
    }
  });

  it('SQL-looking and hostile values in identifiers, query parameters and path ids', async () => {
    const sqlish = [
      "' OR '1'='1",
      "admin'--",
      '1; DROP TABLE users; --',
      '" UNION SELECT password_hash FROM users --',
      '%',
      '_',
      '\\',
      '\u0000',
      '𝕏'.repeat(300),
    ];
    for (const value of sqlish) {
      const where = (what: string) => `${what} ${JSON.stringify(value.slice(0, 20))}`;
      const checkEcho = (what: string, response: TestResponse) => check(where(what), response, value);
      checkEcho('login email', await t.client().post('/login', { email: value, password: value }));
      checkEcho('login username', await t.client().post('/login', { username: value, password: 'x' }));
      checkEcho('forgot', await t.client().post('/forgot-password', { email: value }));
      checkEcho(
        'reset',
        await t.client().post('/reset-password', { token: value, password: 'x', password_confirm: 'x' }),
      );
      checkEcho('magic verify', await t.client().get(`/magic-link/verify/${encodeURIComponent(value)}`));
      if (/^[\x20-\x7e]+$/.test(value)) {
        const headers = { authorization: `Bearer ${value}` };
        checkEcho('bearer', await t.client().get('/me', 'json', { headers }));
      }
      const q = encodeURIComponent(value);
      for (const url of [
        `/api/v1/posts?search=${q}`,
        `/api/v1/posts?sort=${q}`,
        `/api/v1/posts?derive=${q}`,
        `/api/v1/posts?page=${q}`,
        `/api/v1/posts?limit=${q}`,
        `/api/v1/posts/${q}`,
        `/api/v1/comments?post_id=${q}`,
        `/api/v1/posts/live?page=${q}`,
        `/api/v1/projects/live?fields=${q}`,
      ]) {
        checkEcho(url, await t.client().get(url));
      }
      checkEcho('sudo', await session.post('/sudo/verify', { factor: value, proof: value }));
      checkEcho('revoke', await session.post(`/tokens/revoke/${encodeURIComponent(value)}`));
    }
    // Nothing was dropped or rewritten by the SQL-looking input.
    expect(await t.services.users.findById(user.id)).toMatchObject({ email: user.email });
  });

  it('U+0000 in an auth field is a 422 on every dialect, never a database error', async () => {
    for (const [url, body] of [
      ['/login', { email: 'a\u0000@example.com', password: 'x' }],
      ['/login', { username: '\u0000', password: 'x' }],
      [
        '/register',
        { username: 'nul\u0000', email: 'nul@example.com', password: 'x', password_confirm: 'x' },
      ],
      ['/forgot-password', { email: 'a\u0000@example.com' }],
      ['/magic-link', { email: 'a\u0000@example.com' }],
      ['/reset-password', { token: '\u0000', password: 'x', password_confirm: 'x' }],
    ] as const) {
      const response = check(url, await t.client().post(url, body));
      expect(response.status, `${url}: ${response.text}`).toBe(422);
    }
  });

  it('U+0000 in the resource API: 400 in the query, 422 in a payload, nothing written', async () => {
    for (const url of [
      '/api/v1/posts?search=%00',
      '/api/v1/posts?sort=title%00',
      '/api/v1/comments?post_id=%00',
      '/api/v1/posts/live?status=%00',
    ]) {
      const response = check(url, await t.client().get(url));
      expect(response.status, `${url}: ${response.text}`).toBe(400);
      expect(response.headers['content-type']).toContain('application/problem+json');
    }
    const before = await t.client().get('/api/v1/posts?limit=1');
    const created = check(
      'POST posts with NUL',
      await session.post('/api/v1/posts', [
        { title: 'fine title', body: 'fine body' },
        { title: 'abc\u0000def', body: 'x' },
      ]),
    );
    expect(created.status, created.text).toBe(422);
    expect(created.body.invalid_params).toEqual([
      { name: '[1].title', reason: 'contains an invalid character' },
    ]);
    const after = await t.client().get('/api/v1/posts?limit=1');
    expect(after.body.pagination.total).toBe(before.body.pagination.total);
  });

  it('huge numbers, raw ids and unknown routes', async () => {
    const huge = ['99999999999999999999999', '1e309', '-1', '0', '1.5', 'NaN', 'Infinity', '0x10'];
    for (const n of huge) {
      for (const url of [
        `/api/v1/posts?page=${n}`,
        `/api/v1/posts?limit=${n}`,
        `/api/v1/posts/${n}`,
        `/api/v1/comments?post_id=${n}`,
      ]) {
        check(url, await t.client().get(url));
      }
      check(`DELETE /tokens/${n}`, await session.delete(`/tokens/${n}`));
    }
    // A raw id is not an id: 404, and the raw number is not echoed back.
    for (const raw of postIds) {
      for (const method of ['GET', 'PATCH', 'DELETE'] as const) {
        const response = check(
          `${method} raw id`,
          await session.request(method, `/api/v1/posts/${raw}`, 'json', method === 'PATCH' ? {} : undefined),
        );
        expect(response.status).toBe(404);
      }
    }
    for (const url of [
      '/nope',
      '/api/v9/posts',
      '/api/v1/nope',
      '/api/v1/posts/../../../etc/passwd',
      '/%2e%2e/%2e%2e/etc/passwd',
      '/login/../../src/app/server.ts',
      '/assets/../package.json',
      '/oauth/nope',
      '/oauth/callback/nope?code=x&state=y',
      '/oauth2/authorize?client_id=nope&redirect_uri=https%3A%2F%2Fevil.example%2F&response_type=code',
      '/oauth2/authorize/continue',
      '/oauth2/end-session?id_token_hint=a.b.c',
    ]) {
      for (const kind of ['json', 'form'] as const) {
        const response = check(url, await t.client().get(url, kind));
        expect([400, 404], `${url}: ${response.status}`).toContain(response.status);
      }
    }
  });

  it('the API never sends a raw post id, and nothing seen above holds one as an id field', async () => {
    const list = check('list', await session.get('/api/v1/posts?derive=comments,author'));
    expect(list.status).toBe(200);
    for (const { where, text } of [...seen, { where: 'list', text: list.text }]) {
      if (!where.includes('/api/')) continue;
      for (const raw of postIds) {
        expect(text, `raw post id in ${where}`).not.toMatch(
          new RegExp(`"(?:id|post_id)"\\s*:\\s*"?${raw}\\b`),
        );
      }
    }
    // The enrolled TOTP secret is not given back by the settings or sudo pages.
    for (const url of ['/two-factor', '/sudo', '/me']) {
      for (const kind of ['json', 'form'] as const) check(url, await session.get(url, kind));
    }
  });
});
