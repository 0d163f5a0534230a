/**
 * "Keep it fixed" (issue 13): a property-based fuzz suite. fast-check generates requests across
 * every auth and API endpoint, as JSON, SPA and form clients, anonymous and signed in; no answer may
 * be a 5xx or hold a stack trace, SQL text, a hash, the TOTP secret or a raw id of an obfuscated
 * field. CITADEL_FUZZ_RUNS sets the number of requests (default 10,000; CI keeps the default).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertNoSecretsLeaked } from '../helpers/client.ts';
import { insertComments, insertPosts, publicId, startBlogApp, type BlogApp } from '../api/helpers.ts';
import { enrollTotp } from '../factors/helpers.ts';
import { testDialect } from '../helpers/databases.ts';

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

const AUTH_ROUTES: [string, string][] = [
  ['GET', '/login'],
  ['POST', '/login'],
  ['GET', '/register'],
  ['POST', '/register'],
  ['GET', '/me'],
  ['POST', '/forgot-password'],
  ['GET', '/reset-password'],
  ['POST', '/reset-password'],
  ['POST', '/magic-link'],
  ['GET', '/magic-link/verify'],
  ['GET', '/action/show'],
  ['POST', '/action/challenge'],
  ['POST', '/action/handle'],
  ['GET', '/two-factor'],
  ['POST', '/two-factor/enroll/start'],
  ['POST', '/two-factor/enroll/confirm'],
  ['POST', '/two-factor/unenroll'],
  ['GET', '/sudo'],
  ['POST', '/sudo/challenge'],
  ['POST', '/sudo/verify'],
  ['GET', '/tokens'],
  ['POST', '/tokens'],
  ['DELETE', '/tokens/1'],
  ['GET', '/set-password'],
  ['POST', '/set-password'],
  ['GET', '/oauth/nope'],
  ['GET', '/oauth/callback/nope'],
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
  '__proto__',
  'constructor',
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
const query = fc.dictionary(
  fc.constantFrom('page', 'limit', 'sort', 'search', 'derive', 'status', 'post_id', 'token', 'next', 'x'),
  queryValue,
  { maxKeys: 4 },
);

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
  query: Record<string, string>;
  body: unknown;
  kind: 'json' | 'spa' | 'form';
  who: 'anonymous' | 'session' | 'bearer';
  raw: boolean;
}

// On SQLite (CI's fast database): the properties do not depend on the dialect; the other suites do.
describe.skipIf(testDialect() !== 'sqlite')('fuzz: generated requests across auth and API endpoints', () => {
  let t: BlogApp;
  let totpSecret: string;
  let sessionCookie: string;
  let bearer: string;
  let rawIds: number[];
  let apiPaths: fc.Arbitrary<[string, string]>;

  beforeAll(async () => {
    t = await startBlogApp();
    const owner = await t.createUser();
    const session = await t.signIn(owner);
    totpSecret = (await enrollTotp(t, session)).secret;
    rawIds = await insertPosts(t, owner, [
      { title: 'one' },
      { title: 'two', status: 'draft' },
      { title: 'three' },
    ]);
    // Raw ids above 3 are numbers a generator might produce anyway; 1-3 are the ones worth hiding.
    await insertComments(t, rawIds[0]!, 3);
    const created = await session.post('/tokens', { name: 'fuzz', abilities: ['*'] });
    bearer = created.body.token;
    sessionCookie = [...session.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const ids = fc.oneof(
      fc.constantFrom(...rawIds.map((id) => publicId(t, id)), ...rawIds.map(String)),
      queryValue,
    );
    apiPaths = fc.tuple(
      fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE'),
      fc.oneof(
        fc.constantFrom('/api/v1/posts', '/api/v1/comments', '/api/v2/posts', '/api/v1/docs'),
        fc
          .tuple(fc.constantFrom('/api/v1/posts/', '/api/v1/comments/'), ids)
          .map(
            ([p, id]) => p + encodeURIComponent((id as string & { toWellFormed(): string }).toWellFormed()),
          ),
      ),
    );
  });
  afterAll(async () => t?.close());

  it(`${RUNS} generated requests: no 5xx, no leak`, { timeout: 600_000 }, async () => {
    const request: fc.Arbitrary<FuzzRequest> = fc
      .record({
        route: fc.oneof(fc.constantFrom(...AUTH_ROUTES), apiPaths),
        query,
        body,
        kind: fc.constantFrom('json', 'spa', 'form'),
        // Only anonymous clients sign out or reset: the signed-in ones must stay signed in.
        who: fc.constantFrom('anonymous', 'session', 'bearer'),
        raw: fc.boolean(),
      })
      .map(({ route, ...rest }) => ({ method: route[0], path: route[1], ...rest }));

    let sent = 0;
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        sent += 1;
        const headers: Record<string, string> = {};
        if (r.who === 'session') headers.cookie = sessionCookie;
        if (r.who === 'bearer') headers.authorization = `Bearer ${bearer}`;
        if (r.kind === 'spa') headers['x-spa'] = 'true';
        if (r.kind !== 'form') headers.accept = 'application/json';
        const search = new URLSearchParams(r.query).toString();
        const url = r.path + (search ? `?${search}` : '');
        let payload: string | undefined;
        if (r.method !== 'GET' && r.method !== 'DELETE') {
          if (r.kind === 'form' && r.body && typeof r.body === 'object' && !Array.isArray(r.body)) {
            headers['content-type'] = 'application/x-www-form-urlencoded';
            payload = new URLSearchParams(
              Object.entries(r.body).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
            ).toString();
          } else {
            headers['content-type'] = 'application/json';
            payload = JSON.stringify(r.body);
          }
        }
        const response = await t.app.inject({ method: r.method as 'GET', url, headers, payload });
        statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
        const where = `${r.method} ${url} (${r.who}, ${r.kind})`;
        expect(response.statusCode, `${where}: ${response.body.slice(0, 300)}`).toBeLessThan(500);
        // Errors may quote the client's own input back: take it out before looking for leaks.
        let text = response.body;
        // The page's own random values (the CSRF token) are not leaks, whatever letters they hold.
        text = text.replace(/(name="_csrf" value=")[^"]*"/g, '$1"');
        for (const echo of [url, safeDecode(url), payload ?? '', ...Object.values(r.query)]) {
          if (echo.length > 3) text = text.split(echo).join('');
        }
        for (const piece of JSON.stringify(r.body ?? null).match(/"(?:[^"\\]|\\.)*"/g) ?? []) {
          if (piece.length > 5) text = text.split(piece.slice(1, -1)).join('');
        }
        for (const [what, pattern] of LEAKS) expect(text, `${what} in ${where}`).not.toMatch(pattern);
        assertNoSecretsLeaked(text, where);
        expect(response.body, `TOTP secret in ${where}`).not.toContain(totpSecret);
        if (r.path.startsWith('/api/')) {
          expect(response.body, `raw id in ${where}`).not.toMatch(/"(?:id|post_id)":\s*\d/);
        }
        // Keep the signed-in session usable: a fuzzed sign-out, reset or sudo change would end it.
        if (r.who === 'session' && response.headers['set-cookie']) {
          const fresh = String(response.headers['set-cookie']).match(/citadel_session=([^;]*)/);
          if (fresh?.[1]) sessionCookie = `citadel_session=${fresh[1]}`;
        }
      }),
      {
        numRuns: RUNS,
        seed: process.env.CITADEL_FUZZ_SEED ? Number(process.env.CITADEL_FUZZ_SEED) : undefined,
      },
    );
    expect(sent).toBeGreaterThanOrEqual(RUNS);
    // The run reached past the front door: successes, validation errors and refusals all occurred.
    expect([...statuses.keys()].some((s) => s < 300)).toBe(true);
    expect(statuses.get(422) ?? 0).toBeGreaterThan(0);
  });
});
