/**
 * Documented answers are complete: every operation of the auth OpenAPI document (GET /docs), built-in
 * or from a plugin, is sent requests that provoke each refusal Citadel has (no caller, an invalid
 * bearer token, wrong credentials, a form post without `_csrf`, a cross-site request, a body of
 * another type, unreadable or too large, an invalid body, a reserved query key, unknown ids, a rate
 * limit) and a call as a signed-in user; any status the operation does not list fails, and so
 * does any 5xx. The operations come from the document, so a new endpoint is covered as it appears.
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBlogApp, type BlogApp } from '../support/api-app.ts';
import { TEST_PASSWORD } from '../support/app.ts';
import { grantAdminRole } from '../../src/auth/core/roles.ts';
import { defineEndpoint } from '../../src/auth/core/endpoint.ts';
import { buildAuthOpenApiDocument } from '../../src/auth/core/endpoint-openapi.ts';
import { Envelope } from '../../src/auth/core/envelope-schema.ts';
import type { UserRecord } from '../../src/auth/core/users.ts';

type Json = Record<string, unknown>;
type Schema = Json & {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  enum?: unknown[];
  anyOf?: Schema[];
  oneOf?: Schema[];
};

interface Operation {
  method: string;
  path: string;
  operation: {
    security: Json[];
    responses: Record<string, unknown>;
    parameters: { name: string; in: string; schema: Schema }[];
    requestBody?: { content: Record<string, { schema: Schema }> };
  };
}

/** The most requests sent to one operation to reach its rate limit (login's and sudo's are 5). */
const MOST_TRIES = 12;
const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** What a generated value may depend on: the probing user. */
interface Subject {
  user: UserRecord;
  organizationId: number | null;
}

/** A string the schema accepts, if one of a few candidates fits. */
function sampleString(schema: Schema, name: string, subject: Subject): string {
  if (schema.format === 'email' || /email/.test(name)) return subject.user.email;
  const min = Number(schema.minLength ?? 1);
  const max = Number(schema.maxLength ?? 1000);
  const candidates = [
    name === 'factor' ? 'password' : undefined,
    /password|proof/.test(name) ? 'not-the-password-0123456789' : undefined,
    /identifier|login|username/.test(name) ? subject.user.email : undefined,
    '999999999',
    '123456',
    'unknown-value',
    'a'.repeat(Math.max(min, 8)),
    'A'.repeat(Math.max(min, 43)),
  ];
  const pattern = typeof schema.pattern === 'string' ? new RegExp(schema.pattern, 'u') : null;
  for (const candidate of candidates) {
    if (candidate === undefined || candidate.length < min || candidate.length > max) continue;
    if (pattern && !pattern.test(candidate)) continue;
    return candidate;
  }
  return 'a'.repeat(min);
}

function sample(schema: Schema | undefined, name: string, subject: Subject): unknown {
  if (!schema) return 'x';
  if (schema.enum) return schema.enum[0];
  if ('const' in schema) return schema.const;
  const variant = schema.anyOf ?? schema.oneOf;
  if (variant) return sample(variant.find((s) => s.type !== 'null') ?? variant[0], name, subject);
  // A field declared without a type (a proof passed on as sent): a string.
  const type = [schema.type ?? (schema.properties ? 'object' : 'string')].flat().find((t) => t !== 'null');
  switch (type) {
    case 'boolean':
      return true;
    case 'integer':
    case 'number':
      if (name === 'organization_id' && subject.organizationId !== null) return subject.organizationId;
      return Math.max(Number(schema.minimum ?? 1), /id$/.test(name) ? 999999 : 1);
    case 'string':
      return sampleString(schema, name, subject);
    case 'array': {
      const count = Number(schema.minItems ?? 0);
      return Array.from({ length: count }, () => sample(schema.items, name, subject));
    }
    default: {
      const object: Json = {};
      // The required fields, and those of a credential (a sign-in's email: wrong credentials).
      for (const key of Object.keys(schema.properties ?? {}))
        if (schema.required?.includes(key) || /^(email|password|factor|proof)$/.test(key))
          object[key] = sample(schema.properties?.[key], key, subject);
      return object;
    }
  }
}

/** The path with each parameter replaced: unknown ids, or the values given. */
function urlOf(op: Operation, subject: Subject, values: Record<string, string> = {}): string {
  return op.path.replace(/\{([^}]+)\}/g, (_match, name: string) => {
    const parameter = op.operation.parameters.find((p) => p.in === 'path' && p.name === name);
    return encodeURIComponent(values[name] ?? String(sample(parameter?.schema, name, subject)));
  });
}

function bodySchema(op: Operation): Schema | undefined {
  return op.operation.requestBody?.content['application/json']?.schema;
}

function cookiesOf(response: LightMyRequestResponse, jar: Map<string, string>): void {
  for (const c of response.cookies as { name: string; value: string }[]) {
    if (c.value === '') jar.delete(c.name);
    else jar.set(c.name, c.value);
  }
}

describe('documented answers: every auth operation answers only statuses its entry lists', () => {
  let t: BlogApp;
  let operations: Operation[];
  let ipCounter = 0;

  beforeAll(async () => {
    t = await startBlogApp();
    const document = (await t.app.inject({ method: 'GET', url: '/docs' })).json() as {
      paths: Record<string, Record<string, Operation['operation']>>;
    };
    operations = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, operation]) => ({ method: method.toUpperCase(), path, operation })),
    );
  });
  afterAll(async () => t?.close());

  it('sends each kind of refusal to every operation', { timeout: 120_000 }, async () => {
    expect(operations.length).toBeGreaterThan(50);
    // One hash for every probing user: hashing is most of the time otherwise.
    const passwordHash = await t.services.passwords.hash(TEST_PASSWORD);
    // One line per operation and status: the first request that drew it.
    const undocumented = new Map<string, string>();

    for (const op of operations) {
      // Each operation has its own client address and user: one operation's counters and changes
      // (a sign-out, a deleted account) do not reach the next.
      ipCounter += 1;
      const ip = `10.9.${Math.floor(ipCounter / 250)}.${(ipCounter % 250) + 1}`;
      const user = await t.services.users.create({
        username: `probe${process.pid}n${ipCounter}`,
        email: `probe${process.pid}n${ipCounter}@example.com`,
        passwordHash,
        active: true,
      });
      await t.services.users.markEmailVerified(user.id);
      if (op.path.startsWith('/admin/')) await grantAdminRole(t.services.db, user.email);
      const jar = new Map<string, string>();
      const send = async (
        probe: string,
        request: { url?: string; headers?: Record<string, string>; payload?: string; signedIn?: boolean },
      ): Promise<number> => {
        const headers: Record<string, string> = { accept: 'application/json', ...request.headers };
        if (request.signedIn !== false && jar.size > 0)
          headers.cookie = [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
        const response = await t.app.inject({
          method: op.method as 'GET',
          url: request.url ?? urlOf(op, subject),
          headers,
          payload: request.payload,
          remoteAddress: ip,
        });
        if (request.signedIn !== false) cookiesOf(response, jar);
        const key = `${op.method} ${op.path}: ${response.statusCode}`;
        if (!(String(response.statusCode) in op.operation.responses) || response.statusCode >= 500)
          if (!undocumented.has(key))
            undocumented.set(key, `${key} (${probe}) ${response.body.slice(0, 120)}`);
        return response.statusCode;
      };
      const json = (value: unknown) => ({
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify(value),
      });

      // The user signs in from this operation's address (its session cookie goes in `jar`), and
      // may prove the password again for sudo mode.
      const asUser = async (url: string, payload: Json) => {
        const response = await t.app.inject({
          method: 'POST',
          url,
          headers: {
            accept: 'application/json',
            'content-type': 'application/json',
            ...(jar.size > 0
              ? { cookie: [...jar].map(([name, value]) => `${name}=${value}`).join('; ') }
              : {}),
          },
          payload: JSON.stringify(payload),
          remoteAddress: ip,
        });
        cookiesOf(response, jar);
        return response;
      };
      const signIn = async () => {
        jar.clear();
        const login = await asUser('/login', { email: user.email, password: TEST_PASSWORD });
        expect(login.statusCode, login.body).toBe(200);
      };
      await signIn();
      const subject: Subject = { user, organizationId: null };
      if (op.path.startsWith('/organizations')) {
        const created = await asUser('/organizations', { name: `Org ${ipCounter}` });
        const organization = (created.json() as { data?: { organization?: { id: number } } }).data
          ?.organization;
        subject.organizationId = organization?.id ?? null;
      }
      const schema = bodySchema(op);
      const generated = () => sample(schema, 'body', subject);
      const unsafe = UNSAFE.has(op.method);
      const anonymous = op.operation.security.some((s) => Object.keys(s).length === 0);

      // No caller (wrong credentials where the body names the user), and an invalid bearer token.
      await send('no caller', { ...(unsafe ? json(generated()) : {}), signedIn: false });
      await send('invalid bearer token', {
        ...(unsafe ? json(generated()) : {}),
        headers: { ...(unsafe ? json(null).headers : {}), authorization: 'Bearer not-a-token' },
        signedIn: false,
      });
      await send('reserved query key', { url: `${urlOf(op, subject)}?__proto__[x]=1` });
      if (unsafe) {
        await send('cross-site', {
          ...json(generated()),
          headers: { 'content-type': 'application/json', 'sec-fetch-site': 'cross-site' },
        });
        const fields = Object.fromEntries(
          Object.entries((generated() ?? {}) as Json).map(([key, value]) => [key, String(value)]),
        );
        await send('form without _csrf', {
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload: new URLSearchParams(fields).toString(),
        });
        await send('text/plain body', { headers: { 'content-type': 'text/plain' }, payload: 'hello' });
        await send('XML body', { headers: { 'content-type': 'application/xml' }, payload: '<a/>' });
        await send('unreadable JSON', { headers: { 'content-type': 'application/json' }, payload: '{' });
        await send('body over the limit', {
          headers: { 'content-type': 'application/json' },
          // Just over the server's 2 MiB body limit.
          payload: JSON.stringify({ filler: 'x'.repeat(2 * 1024 * 1024 + 1024) }),
        });
        if (schema) {
          await send('empty body', json({}));
          const wrongTypes = Object.fromEntries(
            Object.keys(schema.properties ?? {}).map((key) => [key, { nested: [1] }]),
          );
          await send('fields of the wrong type', json(wrongTypes));
        }
      }
      // A personal access token without abilities (403 where one is needed, 401 where a session is).
      const { token } = await t.services.tokens.issue({
        userId: user.id,
        name: 'probe',
        abilities: [],
        expiresAt: null,
      });
      await send('token without abilities', {
        ...(unsafe ? json(generated()) : {}),
        headers: { ...(unsafe ? json(null).headers : {}), authorization: `Bearer ${token}` },
        signedIn: false,
      });
      await send('signed in, unknown ids', unsafe ? json(generated()) : {});
      // In sudo mode from here on (signed in again if that request ended the session): the
      // handlers behind a sudo check are reached too.
      if ((await asUser('/sudo/verify', { factor: 'password', proof: TEST_PASSWORD })).statusCode !== 200) {
        await signIn();
        const elevated = await asUser('/sudo/verify', { factor: 'password', proof: TEST_PASSWORD });
        expect(elevated.statusCode, elevated.body).toBe(200);
      }
      await send('signed in (sudo), unknown ids', unsafe ? json(generated()) : {});
      // Where there are ids to name: the user's own organization, the user themself.
      if (subject.organizationId !== null && op.path.includes('{id}')) {
        const own = urlOf(op, subject, { id: String(subject.organizationId), userId: String(user.id) });
        await send('signed in, own ids', { url: own, ...(unsafe ? json(generated()) : {}) });
      }
      if (op.path.startsWith('/admin/users/{id}')) {
        await send('signed in, own id', {
          url: urlOf(op, subject, { id: String(user.id) }),
          ...(unsafe ? json(generated()) : {}),
        });
      }
      // The rate limit: the same request until 429 (or MOST_TRIES), from the same address; as
      // nobody where anyone may call (wrong credentials, again and again).
      for (let tries = 0; tries < MOST_TRIES; tries += 1) {
        const status = await send('repeated', {
          ...(unsafe ? json(generated()) : {}),
          signedIn: !anonymous,
        });
        if (status === 429) break;
      }
    }
    expect(
      [...undocumented.values()],
      `answers the auth OpenAPI document does not list (${undocumented.size})`,
    ).toEqual([]);
  });
});

describe('the statuses an operation lists follow from its declaration', () => {
  const read = defineEndpoint({
    method: 'GET',
    path: '/things/:id',
    action: 'things.show',
    auth: 'anonymous',
    failures: [404],
    responses: { 200: Envelope() },
    handler: async () => ({ status: 'success' }),
  });
  const write = defineEndpoint({
    method: 'DELETE',
    path: '/things/:id',
    action: 'things.delete',
    auth: 'session',
    responses: { 200: Envelope() },
    handler: async () => ({ status: 'success' }),
  });
  const statuses = (rateLimits = [] as Parameters<typeof buildAuthOpenApiDocument>[1]['rateLimits']) => {
    const document = buildAuthOpenApiDocument([{ name: 'things', endpoints: [read, write] }], {
      title: 'Things',
      serverUrl: '/',
      cookieName: 'sid',
      rateLimits,
    }) as { paths: Record<string, Record<string, { responses: object; description?: string }>> };
    const item = document.paths['/things/{id}']!;
    return { get: Object.keys(item.get!.responses), delete: Object.keys(item.delete!.responses), item };
  };

  it('the adapter’s refusals by method and access rule, and the handler’s `failures`', () => {
    const { get, delete: remove } = statuses();
    expect(get.sort()).toEqual(['200', '401', '404', '422']);
    expect(remove.sort()).toEqual(['200', '400', '401', '403', '413', '415', '422']);
  });

  it('429 where a plugin’s `rateLimits` rule matches the path and method, and only there', () => {
    const rule = {
      name: 'things:delete',
      path: '/things/:id',
      method: 'DELETE' as const,
      max: 5,
      windowSeconds: 60,
    };
    const { get, delete: remove, item } = statuses([rule]);
    expect(remove).toContain('429');
    expect(item.delete!.description).toContain('things:delete');
    expect(get).not.toContain('429');
    expect(statuses([{ ...rule, path: (path: string) => path.startsWith('/things') }]).get).not.toContain(
      '429',
    );
    expect(statuses([{ ...rule, method: undefined }]).get).toContain('429');
  });
});
