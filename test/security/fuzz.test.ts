/**
 * "Keep it fixed" (issues 13, 20 and the hardening issue): a property-based fuzz suite. fast-check
 * generates requests to every route of Fastify's route table (so a new route, a plugin's too, joins
 * by itself), each with a method it serves, sent by realistic callers: anonymous, a signed-in user
 * with TOTP, its personal access token and service JWT, an organization owner acting in an
 * organization with members and invitations (and a token bound to it), and an administrator in
 * sudo mode (fuzz-world.ts keeps them usable whatever the run does to them). Path parameters name
 * live rows (organizations, members, invitations, users, posts, projects, tokens, sessions) or
 * hostile ids (past 32 and 64 bits, negative, `.`, `..`, `%2e%2e`, long). Bodies follow the
 * endpoint's schema from the OpenAPI documents (fuzz-bodies.ts) or are random, with hostile keys
 * (`__proto__`, `constructor`, `prototype`, bracket forms), in every content type (JSON with and
 * without a charset, form, multipart, text/plain, XML, none, empty), with and without `_csrf`.
 * Query strings hold the resource API's list parameters and reserved names. No answer may be a 5xx
 * or hold a stack trace, SQL text, a hash, a TOTP secret or a raw id of an obfuscated field; every
 * route family must answer something other than 404/405 (most, a success) so that a regression to
 * "everything refused" fails. CITADEL_FUZZ_RUNS sets the number of requests (default 6,000 on
 * SQLite, 3,000 on PostgreSQL and MariaDB), CITADEL_FUZZ_SEED the seed.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertNoSecretsLeaked } from '../support/client.ts';
import { startBlogApp, type BlogApp } from '../support/api-app.ts';
import { routePatterns } from '../support/routes.ts';
import { testDialect } from '../support/databases.ts';
import { PasswordHasher } from '../../src/auth/core/passwords.ts';
import {
  HOSTILE_IDS,
  HOSTILE_KEYS,
  Ref,
  bodiesFromDocuments,
  ref,
  resolveRefs,
  type RefKind,
} from './fuzz-bodies.ts';
import { FuzzWorld, WHO, cookieHeader, absorbCookies, overTcp, type Who } from './fuzz-world.ts';

// A request that reaches its handler costs about twice one refused at the door: 6,000 keep the
// file near the time 10,000 mostly refused ones took. Fewer on the server databases.
const RUNS = Number(process.env.CITADEL_FUZZ_RUNS ?? (testDialect() === 'sqlite' ? 6_000 : 3_000));

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
  'grant_type',
  'client_id',
  'client_secret',
  'redirect_uri',
  'code_verifier',
  'refresh_token',
  'decision',
  'id_token_hint',
  'redirect_uris',
  'client_name',
  'token_endpoint_auth_method',
  'application_type',
  'scope',
  '__proto__',
  'constructor',
  'prototype',
  'role',
  'organization_id',
  'slug',
  'reason',
  'until',
  'locale',
  '__proto__[x]',
  'a[constructor][prototype]',
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
      fc.constantFrom(
        'page',
        'limit',
        'sort',
        'search',
        'derive',
        'status',
        'post_id',
        'token',
        'next',
        'lang',
        'x',
      ),
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

/** Route families: each must get answers past the router (not 404/405), most of them a success. */
const FAMILIES: [string, RegExp][] = [
  ['organizations/members', /^\/organizations\/:id\/members/],
  ['organizations/invitations', /^\/organizations\/(:id\/)?invitations/],
  ['organizations', /^\/organizations/],
  ['admin/impersonation', /^\/admin\/(impersonation|users\/:id\/impersonate)/],
  ['admin', /^\/admin\//],
  ['tokens', /^\/tokens?(\/|$)/],
  ['factors', /^\/(two-factor|passkey)/],
  ['sudo', /^\/sudo/],
  ['account', /^\/(account|sessions)(\/|$)/],
  [
    'auth',
    /^\/(login|logout|register|forgot-password|reset-password|set-password|magic-link|action|oauth|me)(\/|$)/,
  ],
  ['docs', /^\/(docs|endpoints)(\/|$)|^\/api\/v\d+\/docs/],
  ['resource API', /^\/api\/v\d+\//],
  ['well-known', /^\/\.well-known\//],
  ['oauth provider', /^\/oauth2\//],
  ['pages', /^\//],
];
/** Families whose every run must include a 2xx (a 303 may be a redirect to the sign-in page). */
const MUST_SUCCEED = [
  'organizations',
  'organizations/members',
  'organizations/invitations',
  'admin',
  'admin/impersonation',
  'tokens',
  'factors',
  'sudo',
  'account',
  'auth',
  'docs',
  'resource API',
  'well-known',
];

export function familyOf(pattern: string): string {
  return FAMILIES.find(([, test]) => test.test(pattern))![0];
}

/** Which live rows a path parameter names, from where it sits. */
function liveParam(pattern: string, name: string): RefKind | undefined {
  if (pattern.startsWith('/organizations/invitations/')) return undefined;
  if (pattern.startsWith('/organizations/'))
    return name === 'userId' ? 'member' : name === 'invitationId' ? 'invitation' : 'organization';
  if (pattern.startsWith('/admin/users/')) return 'victim';
  if (/^\/(admin\/oauth\/clients|account\/apps)\//.test(pattern)) return 'oauthClient';
  if (pattern.startsWith('/tokens/')) return 'token';
  if (pattern.startsWith('/sessions/')) return 'session';
  if (/^\/api\/v\d+\/projects\//.test(pattern)) return 'project';
  if (/^\/api\/v\d+\/comments\//.test(pattern)) return 'comment';
  if (/^\/(api\/v\d+\/(posts|my_posts)|posts|my\/posts)\//.test(pattern)) return 'post';
  return undefined;
}

/**
 * Callers likely to go deep on a route: organization routes favour the owner, admin ones the admin
 * (a clean request always comes from them).
 */
function whoFor(pattern: string, clean = false): fc.Arbitrary<Who> {
  const anyone = fc.constantFrom(...WHO);
  if (clean && pattern.startsWith('/admin/')) return fc.constant('admin');
  if (clean && (pattern.startsWith('/organizations') || /^\/api\/v\d+\/projects/.test(pattern)))
    return fc.constantFrom('owner', 'orgPat');
  if (pattern.startsWith('/admin/'))
    return fc.oneof({ weight: 5, arbitrary: fc.constant<Who>('admin') }, { weight: 3, arbitrary: anyone });
  if (pattern.startsWith('/organizations') || /^\/api\/v\d+\/projects/.test(pattern))
    return fc.oneof(
      { weight: 3, arbitrary: fc.constant<Who>('owner') },
      { weight: 2, arbitrary: fc.constant<Who>('orgPat') },
      { weight: 3, arbitrary: anyone },
    );
  return anyone;
}

interface FuzzRequest {
  method: string;
  pattern: string;
  /** Path segments: literal, raw (already a URL's spelling) or a live row. */
  segments: (string | { raw: string } | Ref)[];
  query: [string, string][];
  body: unknown;
  encoding: Encoding;
  kind: 'json' | 'spa' | 'form';
  who: Who;
  /** Session callers: the CSRF token in the header, in the body, or not at all. */
  csrf: 'header' | 'field' | 'none';
}

const SESSION_OF: Partial<Record<Who, 'user' | 'owner' | 'admin'>> = {
  user: 'user',
  owner: 'owner',
  admin: 'admin',
};
const BEARER_OF: Partial<Record<Who, 'pat' | 'jwt' | 'orgPat'>> = {
  pat: 'pat',
  jwt: 'jwt',
  orgPat: 'orgPat',
};

describe('fuzz: generated requests across every route, by real callers', () => {
  let t: BlogApp;
  let world: FuzzWorld;
  let table: [string, string][] = [];
  let request: fc.Arbitrary<FuzzRequest>;

  beforeAll(async () => {
    t = await startBlogApp();
    // Argon2id at its lowest cost: the run signs in, verifies and sets passwords thousands of
    // times, and what it checks is the answers, not the hash's cost.
    (t.services as { passwords: PasswordHasher }).passwords = new PasswordHasher({
      memoryCost: 256,
      timeCost: 1,
      parallelism: 1,
    });
    world = new FuzzWorld(t);
    // Requests with a `.` or `..` segment go over TCP: inject resolves dot segments client-side.
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    await world.setUp();
    table = routePatterns(t.app);
    // Bodies that pass each endpoint's schema, from the documents the server publishes.
    const documents = [];
    for (const url of [
      '/docs',
      ...new Set(table.map(([, p]) => /^\/api\/v\d+\/docs$/.exec(p)?.[0]).filter(Boolean)),
    ]) {
      const answer = await t.app.inject({ url: url!, headers: { accept: 'application/json' } });
      expect(answer.statusCode, url).toBe(200);
      documents.push(JSON.parse(answer.body));
    }
    const bodies = bodiesFromDocuments(documents);
    const schemaBody = (method: string, pattern: string) => {
      // Aliases (POST …/role, …/delete, /tokens/create) take the body of the route they stand for.
      const parent = pattern.replace(/\/[^/]+$/, '');
      return (
        bodies.get(`${method} ${pattern}`) ?? [...bodies].find(([key]) => key.split(' ')[1] === parent)?.[1]
      );
    };
    const withHostileKey = (valid: fc.Arbitrary<unknown>) =>
      fc.tuple(valid, fc.constantFrom(...HOSTILE_KEYS), scalar).map(([b, key, v]) => {
        if (!b || typeof b !== 'object' || Array.isArray(b)) return b;
        const copy = { ...b };
        Object.defineProperty(copy, key, { value: v, enumerable: true, writable: true });
        return copy;
      });
    const liveIds = fc.oneof(
      fc.constantFrom(...world.postIds.map(String), '999999'),
      queryValue.map((v) => encodeURIComponent((v as string & { toWellFormed(): string }).toWellFormed())),
    );
    const hostile = fc.constantFrom(...HOSTILE_IDS).map((raw) => ({ raw }));
    const perRoute = table.map(([method, pattern]) => {
      const segments = (clean: boolean) =>
        pattern.split('/').map((segment) => {
          if (segment === ':file')
            return fc.constantFrom('swagger-ui.css', 'index.js', 'nope', '..%2F..').map((raw) => ({ raw }));
          if (segment === ':provider')
            return fc.constantFrom('nope', 'github', '__proto__').map((raw) => ({ raw }));
          if (!segment.startsWith(':') && segment !== '*') return fc.constant(segment);
          const live = liveParam(pattern, segment.slice(1));
          const random = liveIds.map((raw) => ({ raw }));
          if (live && clean) return ref(live);
          return live
            ? fc.oneof(
                { weight: 6, arbitrary: ref(live) },
                { weight: 2, arbitrary: hostile },
                { weight: 1, arbitrary: random },
              )
            : fc.oneof(hostile, random);
        });
      const valid = schemaBody(method, pattern);
      const messy = fc.record({
        method: fc.constant(method),
        pattern: fc.constant(pattern),
        segments: fc.tuple(...segments(false)),
        // Auth endpoints refuse unknown query names (422): most of their requests go without.
        query: fc.oneof(
          { weight: pattern.startsWith('/api/') ? 1 : 3, arbitrary: fc.constant<[string, string][]>([]) },
          { weight: 2, arbitrary: query },
        ),
        body: valid
          ? fc.oneof(
              { weight: 4, arbitrary: valid },
              { weight: 1, arbitrary: withHostileKey(valid) },
              { weight: 2, arbitrary: body },
            )
          : body,
        encoding: fc.oneof(
          { weight: 3, arbitrary: fc.constantFrom<Encoding>('json', 'form', 'multipart') },
          { weight: 1, arbitrary: fc.constantFrom(...ENCODINGS) },
        ),
        kind: fc.constantFrom('json', 'spa', 'form'),
        who: whoFor(pattern),
        csrf: fc.constantFrom('header', 'field', 'none'),
      });
      // A third of the requests are what a real client sends (live ids, a valid body, no stray
      // query, the CSRF token), so that handlers are reached past their checks, not only refused.
      const clean = fc.record({
        method: fc.constant(method),
        pattern: fc.constant(pattern),
        segments: fc.tuple(...segments(true)),
        query: fc.constant<[string, string][]>([]),
        body: valid ?? fc.constant({}),
        encoding: fc.constantFrom<Encoding>('json', 'form'),
        kind: fc.constantFrom('json', 'spa', 'form'),
        who: whoFor(pattern, true),
        csrf: fc.constantFrom('header', 'field'),
      });
      const arbitrary = fc.oneof({ weight: 2, arbitrary: messy }, { weight: 1, arbitrary: clean });
      // Organization and admin routes, whose handlers need a caller with a role, get more requests.
      const weight = /^\/(organizations|admin)\b/.test(pattern) ? 2 : 1;
      return { weight, arbitrary: arbitrary as fc.Arbitrary<FuzzRequest> };
    });
    request = fc.oneof(...perRoute);
  });
  afterAll(async () => t?.close());

  it(
    `${RUNS} generated requests: no 5xx, no leak, every route family reached`,
    { timeout: 900_000 },
    async () => {
      expect(table.length).toBeGreaterThan(50);
      let sent = 0;
      const statuses = new Map<number, number>();
      const byRoute = new Map<string, number>();
      /** Per family: status → count. */
      const byFamily = new Map<string, Map<number, number>>();
      const byWho = new Map<string, number>();
      const dirty = new Set<Who>();
      let repairMs = 0;
      const succeeded = new Set<string>();

      await fc.assert(
        fc.asyncProperty(request, async (r) => {
          sent += 1;
          const began = performance.now();
          // Impersonation too is left running for a while: requests then act as the user.
          if (sent % 1000 === 0) await world.timed('all', () => world.ensureAll());
          else if (sent % 100 === 0) dirty.add('admin');
          // A caller that may have been signed out, switched or left impersonating: checked (GET
          // /me) and repaired only when broken; the administrator also gets its sudo mode back.
          for (const who of dirty) {
            if (who === 'admin') await world.timed('admin', () => world.ensureAdmin());
            else if (await world.timed('check', () => world.works(who))) continue;
            else if (who === 'owner' || who === 'orgPat')
              await world.timed('owner', () => world.ensureOwner());
            else await world.timed('user', () => world.ensureUser());
          }
          dirty.clear();
          repairMs += performance.now() - began;
          const resolve = (x: Ref) => world.resolve(x);
          const path = r.segments
            .map((s) =>
              typeof s === 'string' ? s : s instanceof Ref ? encodeURIComponent(String(resolve(s))) : s.raw,
            )
            .join('/');
          const sessionName = SESSION_OF[r.who];
          const session = sessionName ? world.sessions[sessionName] : undefined;
          const bearerName = BEARER_OF[r.who];
          const headers: Record<string, string> = {};
          if (session) headers.cookie = cookieHeader(session);
          if (session && r.csrf === 'header') headers['x-csrf-token'] = session.csrf;
          if (bearerName && world.bearers[bearerName])
            headers.authorization = `Bearer ${world.bearers[bearerName]}`;
          if (r.kind === 'spa') headers['x-spa'] = 'true';
          headers.accept = r.kind === 'form' ? 'text/html' : 'application/json';
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
          let sentBody = resolveRefs(r.body, resolve);
          if (
            session &&
            r.csrf === 'field' &&
            sentBody &&
            typeof sentBody === 'object' &&
            !Array.isArray(sentBody)
          )
            sentBody = { ...sentBody, _csrf: session.csrf };
          if (r.method !== 'GET' && r.method !== 'OPTIONS') {
            const [type, encoded] = encodeBody(sentBody, r.encoding);
            if (type) headers['content-type'] = type;
            payload = encoded;
          }
          const dotted = r.segments.some(
            (x) => typeof x === 'object' && !(x instanceof Ref) && /^(?:\.|%2e){1,2}$/i.test(x.raw),
          );
          // Live streams stay open: read over TCP for a moment (inject would wait for their end).
          const response =
            dotted || /\/live$/.test(r.pattern)
              ? await overTcp(t.app, r.method, url, headers, payload)
              : await t.app.inject({ method: r.method as 'GET', url, headers, payload });
          if (session) absorbCookies(session, response);
          // A caller the run itself signed out, disabled or deleted: repaired before its next request.
          // (A 401 also answers a bearer token on a session-only route: GET /me tells which.)
          if (r.who !== 'anonymous' && response.statusCode === 401) dirty.add(r.who);
          // A sign-in in a caller's session may have made it another user's.
          if (session && r.method === 'POST' && response.statusCode < 400 && familyOf(r.pattern) === 'auth')
            dirty.add(r.who);

          const status = response.statusCode;
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
          byRoute.set(`${r.method} ${r.pattern}`, (byRoute.get(`${r.method} ${r.pattern}`) ?? 0) + 1);
          if (status < 300) succeeded.add(`${r.method} ${r.pattern}`);
          const family = familyOf(r.pattern);
          const counts = byFamily.get(family) ?? new Map<number, number>();
          counts.set(status, (counts.get(status) ?? 0) + 1);
          byFamily.set(family, counts);
          byWho.set(
            `${r.who} ${status < 300 ? '2xx' : status}`,
            (byWho.get(`${r.who} ${status < 300 ? '2xx' : status}`) ?? 0) + 1,
          );

          const where = `${r.method} ${url} (${r.who}, ${r.kind}, ${r.encoding}, csrf ${r.csrf}) ${JSON.stringify(sentBody)?.slice(0, 200)}`;
          expect(status, `${where}: ${response.body.slice(0, 300)}`).toBeLessThan(500);
          // A `.` or `..` path parameter is a path no route serves, never the route it resolves to.
          if (dotted) expect(status, `${where}: ${response.body.slice(0, 300)}`).toBe(404);
          // A method the route serves, at a path made of live values only, is never refused as a method.
          if (r.segments.every((x) => typeof x === 'string' || x instanceof Ref))
            expect(status, `${where}: ${response.body.slice(0, 300)}`).not.toBe(405);
          // Errors may quote the client's own input back: take it out before looking for leaks.
          let text = response.body;
          // The page's own random values (the CSRF token) are not leaks, whatever letters they hold.
          text = text.replace(/(name="_csrf" value=")[^"]*"/g, '$1"');
          for (const echo of [url, safeDecode(url), payload ?? '', ...r.query.flat()]) {
            if (echo.length > 3) text = text.split(echo).join('');
          }
          for (const piece of JSON.stringify(sentBody ?? null).match(/"(?:[^"\\]|\\.)*"/g) ?? []) {
            if (piece.length > 5) text = text.split(piece.slice(1, -1)).join('');
          }
          for (const [what, pattern] of LEAKS) expect(text, `${what} in ${where}`).not.toMatch(pattern);
          assertNoSecretsLeaked(text, where);
          for (const secret of world.totpSecrets)
            expect(response.body, `TOTP secret in ${where}`).not.toContain(secret);
          if (path.startsWith('/api/')) {
            expect(response.body, `raw id in ${where}`).not.toMatch(/"(?:id|post_id)":\s*\d/);
          }
        }),
        {
          numRuns: RUNS,
          seed: process.env.CITADEL_FUZZ_SEED ? Number(process.env.CITADEL_FUZZ_SEED) : undefined,
          // The run changes the server's state: a shrunk request would meet another world.
          endOnFailure: true,
        },
      );
      const histogram = (m: Map<number, number>) =>
        [...m]
          .sort(([a], [b]) => a - b)
          .map(([status, n]) => `${status}: ${n}`)
          .join(', ');
      console.log(
        `fuzz: ${sent} requests over ${table.length} routes, ${world.rebuilt} callers signed in again or re-created; statuses ${histogram(statuses)}`,
      );
      for (const [family, counts] of [...byFamily].sort())
        console.log(`fuzz: ${family}: ${histogram(counts)}`);
      console.log(
        `fuzz: by caller ${[...byWho]
          .sort()
          .map(([k, n]) => `${k}: ${n}`)
          .join(', ')}`,
      );
      console.log(
        `fuzz: ${Math.round(repairMs)} ms repairing callers: ${[...world.repairs].map(([k, [n, ms]]) => `${k} ${n}× ${Math.round(ms)} ms`).join(', ')}`,
      );
      console.log(
        `fuzz: routes without a success: ${table
          .map(([m, p]) => `${m} ${p}`)
          .filter((k) => !succeeded.has(k))
          .join(', ')}`,
      );
      expect(sent).toBeGreaterThanOrEqual(RUNS);
      // Every route of the table was requested with a method it serves.
      const missed = table.filter(([method, pattern]) => !byRoute.has(`${method} ${pattern}`));
      if (RUNS >= 2_000) expect(missed, 'routes never requested').toEqual([]);
      // Coverage floor: each family answered past the router, most with a success for a real caller.
      for (const [family] of FAMILIES) {
        const counts = byFamily.get(family);
        expect(counts, `${family}: no request`).toBeDefined();
        const past = [...counts!].filter(([s]) => s !== 404 && s !== 405).reduce((a, [, n]) => a + n, 0);
        expect(past, `${family}: only 404/405 (${histogram(counts!)})`).toBeGreaterThan(0);
        if (RUNS >= 2_000 && MUST_SUCCEED.includes(family)) {
          const ok = [...counts!].filter(([s]) => s < 300).reduce((a, [, n]) => a + n, 0);
          expect(ok, `${family}: no success (${histogram(counts!)})`).toBeGreaterThan(0);
        }
      }
      // The run reached past the front door: validation errors and refusals occurred too.
      expect(statuses.get(422) ?? 0).toBeGreaterThan(0);
      expect(statuses.get(415) ?? 0).toBeGreaterThan(0);
    },
  );
});
