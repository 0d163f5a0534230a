/**
 * "Keep it fixed" (issue 13, extended by issue 20): a property-based fuzz suite. fast-check
 * generates requests across every route of Fastify's route table (so a new route, a plugin's too,
 * joins by itself: the account center, sessions, events and the passkey ceremonies among them),
 * as JSON, SPA and form clients, anonymous, signed in and with a bearer token, with bodies of every
 * content type (JSON with and without a charset, form, multipart, text/plain, XML, none, empty),
 * the resource API's list parameters (`fields`, `fields[relation]`, `count`, `cursor`, bracket
 * and JSON filters) and the names `__proto__`, `constructor` and `prototype` in query names,
 * bracket segments and body keys. No answer may be a 5xx or hold a stack trace, SQL text, a hash,
 * the TOTP secret or a raw id of an obfuscated field. CITADEL_FUZZ_RUNS sets the number of
 * requests (default 10,000; CI keeps the default).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertNoSecretsLeaked } from '../support/client.ts';
import { insertComments, insertPosts, publicId, startBlogApp, type BlogApp } from '../support/api-app.ts';
import { enrollTotp, nextStep, startLogin, totpCode } from '../support/factors.ts';
import { testDialect } from '../support/databases.ts';
import { routePatterns } from '../support/routes.ts';

const RUNS = Number(process.env.CITADEL_FUZZ_RUNS ?? 10_000);

const LEAKS: [string, RegExp][] = [
  ['stack trace', /\bat (?:async )?\S*\s*\(?(?:file:\/\/)?\/?[\w./-]+\.(?:ts|js|mjs|cjs):\d+/],
  ['stack trace', /node_modules|\/work\/|\/src\/\w+/],
  [
    'SQL text',
    /\bselect\b[^"]{0,200}\bfrom\b|\binsert\s+into\b|\bdelete\s+from\b|\bupdate\s+"?\w+"?\s+set\b/i,
  ],
  ['database error', /SQLITE_|sqlstate|syntax error|\brelation "|duplicate key|constraint failed/i],
  // MySQL's error names are upper case (ER_DUP_ENTRY): case-insensitive, random tokens matched it.
  ['database error', /\bER_[A-Z][A-Z_]+\b/],
  ['password hash', /\$argon2/],
];

const FIELD_NAMES = [
  'email',
  'username',
  'password',
  'password_confirm',
  'remember',
  'token',
  'code',
  'factor',
  'proof',
  'next',
  'name',
  'abilities',
  'expires_at',
  'title',
  'body',
  'status',
  'comments',
  'post_id',
  'author_name',
  'id',
  '_csrf',
  'response',
  'fields',
  'filter',
  '__proto__',
  'constructor',
  'prototype',
];

const HOSTILE = fc.constantFrom(
  "' OR 1=1 --",
  'select * from users',
  '"; drop table users; --',
  '\u0000',
  '../../etc/passwd',
  '<script>alert(1)</script>',
  '"<victim@corp.example>"a.b',
  'victim@corp.example,x.y',
  '%E2%98%83',
  '☃',
  '\ud800',
  'a'.repeat(5000),
  '1e400',
  '-1',
  '0',
  '9007199254740993',
);

const scalar = fc.oneof(
  fc.string({ maxLength: 40 }),
  HOSTILE,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.emailAddress(),
);
const value = fc.oneof(
  { weight: 4, arbitrary: scalar },
  { weight: 1, arbitrary: fc.array(scalar, { maxLength: 4 }) },
  { weight: 1, arbitrary: fc.dictionary(fc.constantFrom(...FIELD_NAMES), scalar, { maxKeys: 3 }) },
);
const body = fc.oneof(
  { weight: 6, arbitrary: fc.dictionary(fc.constantFrom(...FIELD_NAMES), value, { maxKeys: 6 }) },
  {
    weight: 1,
    arbitrary: fc.array(fc.dictionary(fc.constantFrom(...FIELD_NAMES), value, { maxKeys: 4 }), {
      maxLength: 3,
    }),
  },
  { weight: 1, arbitrary: scalar },
);
const queryValue = fc.oneof(fc.string({ maxLength: 30 }), HOSTILE, fc.integer().map(String));
const RESERVED = fc.constantFrom('__proto__', 'constructor', 'prototype');
const columnName = fc.constantFrom('status', 'pinned', 'title', 'id', 'author', 'comments', 'nope');
const operator = fc.constantFrom('eq', 'ne', 'gt', 'lt', 'in', 'contains', 'null', 'between', 'x');
const segment = fc.oneof(columnName, operator, fc.constantFrom('or', 'and', '0', '1'), RESERVED);
const jsonFilter = fc.oneof(
  fc.constant('{"status":{"eq":"published"}}'),
  fc.constant('{"or":[{"status":{"eq":"draft"}},{"pinned":{"eq":true}}]}'),
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
  fc.tuple(RESERVED, columnName).map(([key, column]) => `{"${key}":{"${column}":{"eq":1}}}`),
  fc.string({ maxLength: 20 }),
);
/** One query parameter as [name, value]: plain names, v2 list parameters, reserved names. */
const queryPair: fc.Arbitrary<[string, string]> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.tuple(
      fc.constantFrom('page', 'limit', 'sort', 'search', 'derive', 'status', 'post_id', 'token', 'next', 'x'),
      queryValue,
    ),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(
      fc.constant('fields'),
      fc.oneof(fc.constantFrom('title', 'title,body', 'id,status', '', 'nope'), queryValue),
    ),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(
      fc.constantFrom(
        'fields[comments]',
        'fields[author]',
        'fields[comments.post]',
        'fields[__proto__]',
        'fields[x]',
      ),
      fc.constantFrom('id,body', 'name', 'title', '', 'constructor'),
    ),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(
      fc.constant('count'),
      fc.oneof(fc.constantFrom('exact', 'estimated', 'none', 'EXACT', ''), queryValue),
    ),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(
      fc.constant('cursor'),
      fc.oneof(fc.base64String({ maxLength: 60 }), queryValue, fc.constant('eyJ2IjoxfQ')),
    ),
  },
  {
    weight: 2,
    arbitrary: fc.tuple(
      fc.tuple(columnName, operator).map(([c, o]) => `filter[${c}][${o}]`),
      fc.oneof(queryValue, fc.constantFrom('published', 'draft', 'true', 'a,b,c')),
    ),
  },
  {
    weight: 2,
    arbitrary: fc.tuple(
      fc
        .array(segment, { minLength: 1, maxLength: 6 })
        .map((parts) => `filter${parts.map((p) => `[${p}]`).join('')}`),
      queryValue,
    ),
  },
  { weight: 1, arbitrary: fc.tuple(fc.constant('filter'), jsonFilter) },
  {
    weight: 1,
    arbitrary: fc.tuple(
      fc
        .tuple(RESERVED, fc.array(segment, { maxLength: 3 }))
        .map(([first, rest]) => first + rest.map((p) => `[${p}]`).join('')),
      queryValue,
    ),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(
      fc
        .tuple(fc.constantFrom('a', 'x', 'fields', 'filter'), RESERVED)
        .map(([name, key]) => `${name}[${key}]`),
      queryValue,
    ),
  },
);
const query = fc.array(queryPair, { maxLength: 5 });

/** How the body goes out: the Content-Type sent (none: no header) and the encoding. */
const ENCODINGS = [
  'json',
  'json-charset',
  'json-empty',
  'form',
  'form-empty',
  'multipart',
  'multipart-empty',
  'multipart-cut',
  'multipart-no-boundary',
  'text',
  'xml',
  'none',
] as const;
type Encoding = (typeof ENCODINGS)[number];

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

interface FuzzRequest {
  method: string;
  path: string;
  query: [string, string][];
  body: unknown;
  encoding: Encoding;
  kind: 'json' | 'spa' | 'form';
  who: 'anonymous' | 'session' | 'bearer';
  /** Session clients: send the session's CSRF token (so form posts get past the check). */
  csrf: boolean;
}

/** A field's value as one form or multipart string. */
const fieldText = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

/** The Content-Type header and payload for a body in one encoding (undefined: nothing sent). */
function encodeBody(body: unknown, encoding: Encoding): [string | undefined, string | undefined] {
  const entries: [string, unknown][] =
    body && typeof body === 'object' && !Array.isArray(body) ? Object.entries(body) : [['value', body]];
  switch (encoding) {
    case 'json':
      return ['application/json', JSON.stringify(body)];
    case 'json-charset':
      return ['application/json; charset=utf-8', JSON.stringify(body)];
    case 'json-empty':
      return ['application/json', ''];
    case 'form':
      return [
        'application/x-www-form-urlencoded',
        new URLSearchParams(entries.map(([k, v]) => [k, fieldText(v)] as [string, string])).toString(),
      ];
    case 'form-empty':
      return ['application/x-www-form-urlencoded', ''];
    case 'multipart':
      return [
        'multipart/form-data; boundary=fuzz',
        entries
          .map(([k, v]) => `--fuzz\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${fieldText(v)}\r\n`)
          .join('') + '--fuzz--\r\n',
      ];
    case 'multipart-empty':
      return ['multipart/form-data; boundary=fuzz', ''];
    // Malformed multipart: the last part cut short, or no boundary parameter at all (400).
    case 'multipart-cut':
      return [
        'multipart/form-data; boundary=fuzz',
        `--fuzz\r\nContent-Disposition: form-data; name="a"\r\n\r\n${fieldText(body)}`,
      ];
    case 'multipart-no-boundary':
      return ['multipart/form-data', `--fuzz\r\n${fieldText(body)}`];
    case 'text':
      return ['text/plain', fieldText(body)];
    case 'xml':
      return ['application/xml', `<body>${fieldText(body)}</body>`];
    case 'none':
      return [undefined, undefined];
  }
}

// On SQLite (CI's fast database): the properties do not depend on the dialect; the other suites do.
/**
 * Routes the run's signed-in clients leave to anonymous ones: they would end the session or the
 * token the run relies on (a bearer token's POST /logout revokes it; its revoke-others ends the
 * run's session).
 */
const ENDS_THE_SESSION = /^\/(logout|account\/delete)$/;
const ENDS_THE_RUNS_CREDENTIALS = /^\/(logout|account\/delete|sessions\/revoke-others)$/;

describe.skipIf(testDialect() !== 'sqlite')('fuzz: generated requests across auth and API endpoints', () => {
  let t: BlogApp;
  let totpSecret: string;
  let owner: Awaited<ReturnType<BlogApp['createUser']>>;
  let sessionCookie: string;
  let csrfToken: string;
  let bearer: string;
  let bearerId: string;
  let routes: fc.Arbitrary<[string, string]>;
  let routeCount = 0;
  let signIns = 0;

  /** A new session for the owner (password, then TOTP), an hour on: past the run's own guesses. */
  async function signInAgain() {
    t.clock.advance(3600);
    nextStep(t);
    const session = await startLogin(t, owner);
    const done = await session.post('/action/handle', { code: totpCode(t, totpSecret) });
    expect(done.body.action, done.text).toBe('action.success');
    csrfToken = await session.csrfToken();
    sessionCookie = [...session.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    signIns += 1;
  }

  beforeAll(async () => {
    t = await startBlogApp();
    owner = await t.createUser();
    const session = await t.signIn(owner);
    totpSecret = (await enrollTotp(t, session)).secret;
    const rawIds = await insertPosts(t, owner, [
      { title: 'one' },
      { title: 'two', status: 'draft' },
      { title: 'three' },
    ]);
    // Raw ids above 3 are numbers a generator might produce anyway; 1-3 are the ones worth hiding.
    await insertComments(t, rawIds[0]!, 3);
    const created = await session.post('/tokens', { name: 'fuzz', abilities: ['*'] });
    bearer = created.body.token;
    bearerId = String(created.body.token_id);
    sessionCookie = [...session.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    csrfToken = await session.csrfToken();
    const ids = fc.oneof(
      fc.constantFrom(...rawIds.map((id) => publicId(t, id)), ...rawIds.map(String), '999999'),
      queryValue.map((v) => (v as string & { toWellFormed(): string }).toWellFormed()),
    );
    // Every route Fastify serves, its parameters filled by generators: a new route joins by itself.
    const table = routePatterns(t.app);
    routeCount = table.length;
    const routePaths = table.map(([method, pattern]) => {
      const params = pattern.split('/').map((segment) => {
        if (segment === ':file') return fc.constantFrom('swagger-ui.css', 'index.js', 'nope', '..%2F..');
        if (segment === ':provider') return fc.constantFrom('nope', 'github', '__proto__');
        if (segment.startsWith(':') || segment === '*') return ids.map(encodeURIComponent);
        return fc.constant(segment);
      });
      return fc.tuple(...params).map((segments) => [method, segments.join('/')] as [string, string]);
    });
    routes = fc.oneof(...routePaths);
  });
  afterAll(async () => t?.close());

  it(`${RUNS} generated requests: no 5xx, no leak`, { timeout: 900_000 }, async () => {
    expect(routeCount).toBeGreaterThan(50);
    const request: fc.Arbitrary<FuzzRequest> = fc
      .record({
        route: routes,
        query,
        body,
        encoding: fc.constantFrom(...ENCODINGS),
        kind: fc.constantFrom('json', 'spa', 'form'),
        who: fc.constantFrom('anonymous', 'session', 'bearer'),
        csrf: fc.boolean(),
      })
      .map(({ route, ...rest }) => ({ method: route[0], path: route[1], ...rest }));

    let sent = 0;
    const statuses = new Map<number, number>();
    const byArea = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        sent += 1;
        // Only anonymous clients sign out or delete: the signed-in ones must stay signed in.
        const ends = r.who === 'session' ? ENDS_THE_SESSION : ENDS_THE_RUNS_CREDENTIALS;
        const who = r.who !== 'anonymous' && ends.test(r.path) ? 'anonymous' : r.who;
        // The run's bearer token is not revoked by the run itself.
        const path =
          r.path === `/tokens/${bearerId}` || r.path === `/tokens/revoke/${bearerId}`
            ? '/tokens/999999'
            : r.path;
        const headers: Record<string, string> = {};
        if (who === 'session') headers.cookie = sessionCookie;
        if (who === 'session' && r.csrf) headers['x-csrf-token'] = csrfToken;
        if (who === 'bearer') headers.authorization = `Bearer ${bearer}`;
        if (r.kind === 'spa') headers['x-spa'] = 'true';
        if (r.kind !== 'form') headers.accept = 'application/json';
        else headers.accept = 'text/html';
        // Lone surrogates cannot be percent-encoded; URLSearchParams would send U+FFFD as well.
        const wellFormed = (text: string) => (text as string & { toWellFormed(): string }).toWellFormed();
        const search = r.query
          .map(
            ([name, value]) =>
              `${wellFormed(name).replace(/[&=#%+\s]/g, encodeURIComponent)}=${encodeURIComponent(wellFormed(value))}`,
          )
          .join('&');
        const url = path + (search ? `?${search}` : '');
        let payload: string | undefined;
        if (r.method !== 'GET' && r.method !== 'OPTIONS') {
          const [type, encoded] = encodeBody(r.body, r.encoding);
          if (type) headers['content-type'] = type;
          payload = encoded;
        }
        const response = await t.app.inject({ method: r.method as 'GET', url, headers, payload });
        statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
        const area = path
          .split('/')
          .slice(0, path.startsWith('/api/') ? 4 : 2)
          .join('/');
        byArea.set(area, (byArea.get(area) ?? 0) + 1);
        const where = `${r.method} ${url} (${who}, ${r.kind}, ${r.encoding})`;
        expect(response.statusCode, `${where}: ${response.body.slice(0, 300)}`).toBeLessThan(500);
        // Errors may quote the client's own input back: take it out before looking for leaks.
        let text = response.body;
        // The page's own random values (the CSRF token) are not leaks, whatever letters they hold.
        text = text.replace(/(name="_csrf" value=")[^"]*"/g, '$1"');
        for (const echo of [url, safeDecode(url), payload ?? '', ...r.query.flat()]) {
          if (echo.length > 3) text = text.split(echo).join('');
        }
        for (const piece of JSON.stringify(r.body ?? null).match(/"(?:[^"\\]|\\.)*"/g) ?? []) {
          if (piece.length > 5) text = text.split(piece.slice(1, -1)).join('');
        }
        for (const [what, pattern] of LEAKS) expect(text, `${what} in ${where}`).not.toMatch(pattern);
        assertNoSecretsLeaked(text, where);
        expect(response.body, `TOTP secret in ${where}`).not.toContain(totpSecret);
        if (path.startsWith('/api/')) {
          expect(response.body, `raw id in ${where}`).not.toMatch(/"(?:id|post_id)":\s*\d/);
        }
        // Keep the signed-in session usable: a fuzzed sudo change or rotation replaces its cookie.
        if (who === 'session' && response.headers['set-cookie']) {
          const fresh = String(response.headers['set-cookie']).match(/citadel_session=([^;]*)/);
          if (fresh?.[1]) sessionCookie = `citadel_session=${fresh[1]}`;
        }
        // A revoke that hit the session itself (or a rotation lost): sign in again, rarely.
        if (sent % 100 === 0) {
          const me = await t.app.inject({
            url: '/me',
            headers: { cookie: sessionCookie, accept: 'application/json' },
          });
          if (me.statusCode !== 200) await signInAgain();
        }
      }),
      {
        numRuns: RUNS,
        seed: process.env.CITADEL_FUZZ_SEED ? Number(process.env.CITADEL_FUZZ_SEED) : undefined,
      },
    );
    const histogram = [...statuses].sort(([a], [b]) => a - b).map(([status, n]) => `${status}: ${n}`);
    console.log(
      `fuzz: ${sent} requests over ${routeCount} routes, ${signIns} new sign-ins; statuses ${histogram.join(', ')}`,
    );
    console.log(
      `fuzz: requests per area ${[...byArea]
        .sort()
        .map(([a, n]) => `${a} ${n}`)
        .join(', ')}`,
    );
    expect(sent).toBeGreaterThanOrEqual(RUNS);
    // The run reached past the front door: successes, validation errors and refusals all occurred.
    expect([...statuses.keys()].some((s) => s < 300)).toBe(true);
    expect(statuses.get(422) ?? 0).toBeGreaterThan(0);
    expect(statuses.get(415) ?? 0).toBeGreaterThan(0);
    // Every part the contract names got its share of the run.
    for (const area of ['/account', '/sessions', '/passkey', '/api/v2/posts', '/api/v1/posts'])
      expect(byArea.get(area) ?? 0, area).toBeGreaterThan(RUNS / 500);
  });
});
