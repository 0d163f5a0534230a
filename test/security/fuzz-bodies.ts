/**
 * Request bodies for the fuzz suite, derived from the OpenAPI documents the server publishes (the
 * auth document at /docs and each resource API version's): a body that passes an endpoint's schema
 * reaches its handler, where a random one mostly stops at validation. Values that must name live
 * rows (an organization, a member, a post) are `Ref`s, resolved when the request is sent, since
 * the fuzz run re-creates what its own requests delete.
 */
import fc from 'fast-check';
import { TEST_PASSWORD } from '../support/app.ts';

/** The kinds of live value a request can name; the run's world resolves them at send time. */
export type RefKind =
  | 'organization'
  | 'member'
  | 'invitation'
  | 'victim'
  | 'email'
  | 'post'
  | 'postRaw'
  | 'comment'
  | 'project'
  | 'token'
  | 'session'
  | 'oauthClient';

export class Ref {
  constructor(readonly kind: RefKind) {}
}

export const ref = (kind: RefKind) => fc.constant(new Ref(kind));

/** Replace every Ref in a generated value by what `resolve` says it is now. */
export function resolveRefs(value: unknown, resolve: (ref: Ref) => string | number): unknown {
  if (value instanceof Ref) return resolve(value);
  if (Array.isArray(value)) return value.map((v) => resolveRefs(v, resolve));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    // Own keys only, defined (not assigned) so that a generated `__proto__` key stays a key.
    for (const [key, v] of Object.entries(value))
      Object.defineProperty(out, key, { value: resolveRefs(v, resolve), enumerable: true, writable: true });
    return out;
  }
  return value;
}

/** Values hostile to ids: past 32 and 64 bits, negative, dot segments, long, not a number. */
export const HOSTILE_IDS = [
  '99999999999999999999',
  '2147483648',
  '2147483647',
  '9223372036854775808',
  '-1',
  '-2147483649',
  '0',
  '1e3',
  '0x1F',
  '1.5',
  '..',
  '.',
  '%2e%2e',
  '%2E',
  '%20',
  '%00',
  '__proto__',
  'constructor',
  'prototype',
  'a'.repeat(300),
];

/** Key names that must never reach a prototype, bare and in bracket forms. */
export const HOSTILE_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  '__proto__[x]',
  '__proto__[polluted]',
  'constructor[prototype]',
  'a[constructor][prototype]',
  'x[__proto__]',
  'role[__proto__][x]',
];

const future = fc
  .integer({ min: 60, max: 90 * 86_400 })
  .map((s) => new Date(Date.now() + s * 1000).toISOString());

/** Values chosen by property name: the ones a handler needs to get past its first checks. */
const BY_NAME: Record<string, fc.Arbitrary<unknown>> = {
  role: fc.constantFrom('owner', 'admin', 'member', 'viewer', 'nope', 'OWNER'),
  organization_id: fc.oneof(
    { weight: 4, arbitrary: ref('organization') },
    { weight: 1, arbitrary: fc.constantFrom(null, '', 2147483648, '99999999999999999999', -1) },
  ),
  email: fc.oneof(ref('email'), fc.emailAddress(), fc.constantFrom('Victim@Example.com', 'a@b')),
  password: fc.oneof(fc.constant(TEST_PASSWORD), fc.string({ minLength: 8, maxLength: 20 })),
  current_password: fc.constant(TEST_PASSWORD),
  proof: fc.oneof(fc.constant(TEST_PASSWORD), fc.stringMatching(/^\d{6}$/), fc.string({ maxLength: 12 })),
  factor: fc.constantFrom('password', 'totp', 'email', 'recovery', 'nope'),
  code: fc.stringMatching(/^\d{6}$/),
  abilities: fc.array(
    fc.constantFrom('*', 'posts:read', 'projects:*', 'organizations:update', 'admin:update', 'x:y'),
    { maxLength: 3 },
  ),
  expires_at: fc.oneof(future, fc.constantFrom('yesterday', '1970-01-01T00:00:00Z')),
  until: fc.oneof(future, fc.constantFrom('1970-01-01T00:00:00Z', 'soon')),
  slug: fc.oneof(fc.stringMatching(/^[a-z0-9]{1,12}(-[a-z0-9]{1,6})?$/), fc.constant('Not A Slug')),
  next: fc.constantFrom('/account', '/organizations', '//evil.example', 'javascript:alert(1)'),
  post_id: fc.oneof(ref('post'), ref('postRaw')),
  status: fc.constantFrom('published', 'draft', 'nope'),
  reason: fc.string({ minLength: 1, maxLength: 30 }),
};

type Schema = Record<string, unknown>;
type Doc = { components?: { schemas?: Record<string, Schema> } };

function deref(schema: Schema, doc: Doc): Schema {
  const pointer = schema.$ref;
  if (typeof pointer !== 'string') return schema;
  const name = pointer.split('/').pop()!;
  return doc.components?.schemas?.[name] ?? {};
}

const anything = fc.oneof(fc.string({ maxLength: 20 }), fc.integer(), fc.boolean(), fc.constant(null));

/** A value that satisfies `schema` (as far as the fuzz needs: types, enums, bounds, required keys). */
export function fromSchema(raw: Schema, doc: Doc, name = '', depth = 0): fc.Arbitrary<unknown> {
  const schema = deref(raw, doc);
  if (name in BY_NAME) return BY_NAME[name]!;
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  if ('const' in schema) return fc.constant(schema.const);
  const choices = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (choices?.length) return fc.oneof(...choices.map((c) => fromSchema(c, doc, name, depth + 1)));
  const base = scalarOrObject(schema, doc, depth);
  return schema.nullable ? fc.option(base, { nil: null, freq: 5 }) : base;
}

function scalarOrObject(schema: Schema, doc: Doc, depth: number): fc.Arbitrary<unknown> {
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      if (depth > 4 || Object.keys(properties).length === 0) return fc.constant({});
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [key, sub] of Object.entries(properties)) model[key] = fromSchema(sub, doc, key, depth + 1);
      return fc.record(model, { requiredKeys: (schema.required as string[] | undefined) ?? [] });
    }
    case 'array': {
      const items = (schema.items ?? {}) as Schema;
      return fc.array(fromSchema(items, doc, '', depth + 1), {
        minLength: Number(schema.minItems ?? 0),
        maxLength: Math.min(Number(schema.maxItems ?? 3), 3),
      });
    }
    case 'string': {
      if (schema.format === 'email') return BY_NAME.email!;
      if (schema.format === 'date-time' || schema.format === 'date') return future;
      const minLength = Number(schema.minLength ?? 0);
      const maxLength = Math.max(minLength, Math.min(Number(schema.maxLength ?? 30), 30));
      return fc.string({ minLength, maxLength });
    }
    case 'integer':
    case 'number': {
      const min = Number(schema.minimum ?? -5);
      const max = Number(schema.maximum ?? Math.max(min + 100, 100));
      return type === 'integer' ? fc.integer({ min, max }) : fc.double({ min, max, noNaN: true });
    }
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    default:
      return anything;
  }
}

interface Operation {
  requestBody?: { content?: Record<string, { schema?: Schema }> };
}
interface Document extends Doc {
  paths: Record<string, Record<string, Operation>>;
  servers?: { url: string }[];
}

/**
 * Body generators per `METHOD /fastify/:pattern`, from OpenAPI documents: the JSON (or form) schema
 * of each operation's request body.
 */
export function bodiesFromDocuments(documents: Document[]): Map<string, fc.Arbitrary<unknown>> {
  const bodies = new Map<string, fc.Arbitrary<unknown>>();
  for (const doc of documents) {
    const prefix = doc.servers?.[0]?.url.replace(/\/$/, '') ?? '';
    for (const [path, operations] of Object.entries(doc.paths)) {
      const pattern = prefix + path.replace(/\{([^}]+)\}/g, ':$1');
      for (const [method, operation] of Object.entries(operations)) {
        const content = operation.requestBody?.content;
        const schema =
          content?.['application/json']?.schema ??
          content?.['application/x-www-form-urlencoded']?.schema ??
          content?.['multipart/form-data']?.schema;
        if (schema) bodies.set(`${method.toUpperCase()} ${pattern}`, fromSchema(schema, doc));
      }
    }
  }
  return bodies;
}
