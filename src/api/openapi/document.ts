import { SESSION_COOKIE } from '../../http/sessions/plugin.ts';
import type { Dialect } from '../../db/url.ts';
import {
  compileApi,
  publishedIn,
  type CompiledRelation,
  type CompiledResource,
} from '../resource/compile.ts';
import { problemTitle } from '../http/problem.ts';
import { MAX_BULK_ITEMS, MAX_NESTING_DEPTH } from '../write/write.ts';
import type { ApiConfig, Verb, WriteVerb } from '../resource/types.ts';
import type { PayloadValidator } from '../resource/validation.ts';
import { sqidSchema, typeSchema, type IdSettings } from './column-schema.ts';
import { DEFAULT_OPENAPI_VERSION, finishOpenApiDocument, type OpenApiVersion } from '../../core/openapi.ts';
import { orNull, toOpenApiSchema, type OpenApiSchema } from './json-schema.ts';
import { filterComponent, filterTreeSchema, itemParameters, listParameters } from './parameters.ts';

/** Thrown for a version the API does not publish (the CLI prints its message as one line). */
export class UnknownApiVersionError extends Error {
  constructor(version: string, known: string[]) {
    super(`unknown API version "${version}" (published: ${known.join(', ') || 'none'})`);
    this.name = 'UnknownApiVersionError';
  }
}

const PROBLEM = 'application/problem+json';
const JSON_TYPE = 'application/json';

const ref = (kind: 'schemas' | 'responses', name: string) => ({
  $ref: `#/components/${kind}/${name}`,
});

/** `blog-posts` → `BlogPosts`: a component name OpenAPI accepts. */
export function componentName(resourceName: string): string {
  const name = resourceName
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');
  return name || 'Resource';
}

/** What every part of one document shares: the schema of an obfuscated id of this deployment. */
interface DocContext {
  sqid: OpenApiSchema;
}

/**
 * A string with no U+0000: the engine refuses the character anywhere in a payload
 * (src/api/request/nul.ts).
 */
export const NO_NUL = '^[^\\u0000]*$';

function columnSchema(ctx: DocContext, resource: CompiledResource, name: string): OpenApiSchema {
  const column = resource.config.columns[name]!;
  let schema: OpenApiSchema = resource.obfuscated.has(name)
    ? { ...ctx.sqid }
    : typeSchema(column.type, column.precision, column.scale);
  if (column.description)
    schema.description = `${column.description}${resource.obfuscated.has(name) ? ' (obfuscated key)' : ''}`;
  if (column.nullable) schema = orNull(schema);
  if (column.readOnly || column.timestamp || name === resource.primaryKey) schema.readOnly = true;
  return schema;
}

/** The other side of a relation: its component when published in this version, else inline. */
function relatedSchema(
  ctx: DocContext,
  relation: CompiledRelation,
  published: ReadonlySet<string>,
): OpenApiSchema {
  const target = relation.target.resource;
  if (target && published.has(target.name)) return ref('schemas', componentName(target.name));
  if (target) return recordSchema(ctx, target, published, false);
  // A plain table (for example `users` as a post's author): the listed columns only.
  const properties: Record<string, OpenApiSchema> = {};
  for (const field of relation.target.output) {
    properties[field.key] = field.kind === 'id' ? { ...ctx.sqid } : typeSchema(field.kind);
  }
  return { type: 'object', properties, required: Object.keys(properties), additionalProperties: false };
}

/**
 * A record as responses carry it: its visible columns, the fields hooks add, and the relations a
 * client may derive. With `fields=` only the primary key is sure to be there.
 */
function recordSchema(
  ctx: DocContext,
  resource: CompiledResource,
  published: ReadonlySet<string>,
  withRelations: boolean,
): OpenApiSchema {
  const properties: Record<string, OpenApiSchema> = {};
  for (const field of resource.output) properties[field.key] = columnSchema(ctx, resource, field.key);
  for (const [name, field] of Object.entries(resource.config.computedFields ?? {})) {
    let schema = typeSchema(field.type);
    if (field.description) schema.description = field.description;
    if (field.nullable) schema = orNull(schema);
    properties[name] = { ...schema, readOnly: true };
  }
  if (withRelations) {
    for (const name of resource.allowed) {
      const relation = resource.relations.get(name)!;
      const target = relatedSchema(ctx, relation, published);
      const description = `Embedded when requested with \`derive=${name}\`.`;
      properties[name] =
        relation.type === 'hasMany'
          ? { type: 'array', items: target, description }
          : { oneOf: [target, { type: 'null' }], description };
    }
  }
  return {
    type: 'object',
    ...(resource.config.description ? { description: resource.config.description } : {}),
    properties,
    required: [resource.primaryKey],
  };
}

/** Every string of a payload schema refuses U+0000, as the engine does. */
function refuseNul(schema: OpenApiSchema): OpenApiSchema {
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (typeof node !== 'object' || node === null) return node;
    const out: OpenApiSchema = {};
    for (const [key, value] of Object.entries(node)) {
      // Map keywords hold property names, not schemas' keywords: walk their values only.
      out[key] =
        key === 'properties' && typeof value === 'object' && value !== null
          ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v)]))
          : // Values, and `not` (a pattern inside it would widen what it refuses), stay as they are.
            key === 'enum' || key === 'const' || key === 'default' || key === 'examples' || key === 'not'
            ? value
            : walk(value);
    }
    const types = [out.type].flat();
    if (types.includes('string') && out.enum === undefined && out.const === undefined) {
      if (out.pattern === undefined) out.pattern = NO_NUL;
      else if (out.pattern !== NO_NUL) out.allOf = [...((out.allOf as unknown[]) ?? []), { pattern: NO_NUL }];
    }
    return out;
  };
  return walk(schema) as OpenApiSchema;
}

/**
 * The column's own type check (src/api/resource/column-types.ts), which the engine applies whatever the
 * validator says: added beside a property when it says more than the validator's schema.
 */
function columnConstraint(resource: CompiledResource, name: string, property: OpenApiSchema) {
  const column = resource.config.columns[name];
  if (!column || column.type === 'json' || resource.obfuscated.has(name)) return null;
  const { description: _description, ...constraint } = typeSchema(
    column.type,
    column.precision,
    column.scale,
  );
  // The property's types: its own, or those of its union's branches (`anyOf: [string, null]`).
  const branches = [property.anyOf, property.oneOf].find(Array.isArray) as OpenApiSchema[] | undefined;
  const types = (branches ?? [property]).flatMap((branch) => [branch.type].flat());
  const same = Object.entries(constraint).every(([key, value]) =>
    key === 'type'
      ? types.length > 0 && types.every((type) => type === value || type === 'null')
      : JSON.stringify(property[key]) === JSON.stringify(value),
  );
  if (same) return null;
  // null is checked by the validator (the column check skips it).
  return { ...constraint, type: [constraint.type as string, 'null'] };
}

/** A validator as the document shows it: obfuscated keys as strings, nested relations added. */
function inputSchema(
  ctx: DocContext,
  resource: CompiledResource,
  validator: PayloadValidator,
  verb: WriteVerb,
  depth: number,
  fixedKey: string | null,
): OpenApiSchema {
  const schema = refuseNul(toOpenApiSchema(validator.closed));
  const properties = (schema.properties ?? {}) as Record<string, OpenApiSchema>;
  for (const [name, property] of Object.entries(properties)) {
    const constraint = columnConstraint(resource, name, property);
    if (constraint) property.allOf = [...((property.allOf as unknown[]) ?? []), constraint];
  }
  for (const field of resource.obfuscated) {
    const property = properties[field];
    if (!property) continue;
    const nullable =
      Array.isArray(property.anyOf) || (Array.isArray(property.type) && property.type.includes('null'));
    properties[field] = nullable ? orNull({ ...ctx.sqid }) : { ...ctx.sqid };
    if (typeof property.description === 'string')
      properties[field]!.description = `${property.description} ${String(ctx.sqid.description)}`;
  }
  if (verb === 'post') {
    // Children created with this record, validated by their own resource (foreign key from us).
    for (const name of resource.nestedWritable) {
      const relation = resource.relations.get(name)!;
      if (depth >= MAX_NESTING_DEPTH) continue;
      properties[name] = {
        type: 'array',
        maxItems: MAX_BULK_ITEMS,
        items: inputSchema(
          ctx,
          relation.target.resource!,
          relation.nestedValidator!,
          'post',
          depth + 1,
          relation.foreignKey,
        ),
        description: `Records of ${relation.target.resource!.name} created with this one, all or nothing (\`${relation.foreignKey}\` comes from this record).`,
      };
    }
    const parents = parentInputs(ctx, resource, depth, fixedKey);
    const required = new Set((schema.required as string[] | undefined) ?? []);
    const rules: OpenApiSchema[] = [];
    for (const parent of parents) {
      properties[parent.name] = parent.schema;
      const key = properties[parent.foreignKey];
      if (key) {
        key.description = `${typeof key.description === 'string' ? `${key.description} ` : ''}Required unless \`${parent.name}\` is given; never both.`;
      }
      // The engine (src/api/write/write.ts prepareItem): both → 422; neither → 422 when the key is required.
      rules.push(
        required.has(parent.foreignKey)
          ? {
              oneOf: [{ required: [parent.foreignKey] }, { required: [parent.name] }],
              description: `\`${parent.foreignKey}\` or \`${parent.name}\`: exactly one.`,
            }
          : {
              not: { required: [parent.foreignKey, parent.name] },
              description: `Not both \`${parent.foreignKey}\` and \`${parent.name}\`.`,
            },
      );
      required.delete(parent.foreignKey);
    }
    if (parents.length > 0) {
      if (required.size > 0) schema.required = [...required];
      else delete schema.required;
    }
    if (rules.length > 0) schema.allOf = [...((schema.allOf as unknown[]) ?? []), ...rules];
  }
  if (verb !== 'post' && depth === 0) {
    for (const name of resource.nestedWritable)
      properties[name] = childChanges(ctx, resource.relations.get(name)!, verb, depth);
  }
  schema.type = 'object';
  schema.properties = properties;
  schema.additionalProperties = false;
  return schema;
}

/** A relation array of PUT/PATCH (src/api/write/update.ts): items that create, update or delete children. */
function childChanges(
  ctx: DocContext,
  relation: CompiledRelation,
  verb: WriteVerb,
  depth: number,
): OpenApiSchema {
  const target = relation.target.resource!;
  const key = target.primaryKey;
  const keySchema = target.pkObfuscated ? { ...ctx.sqid } : typeSchema(target.columnTypes.get(key)!);
  // A create is an item without the key: `not required` keeps it apart from an update.
  const create = inputSchema(ctx, target, relation.nestedValidator!, 'post', depth + 1, relation.foreignKey);
  const kinds: OpenApiSchema[] = [create];
  const patch = target.exposed.has('patch') ? target.validators.patch : undefined;
  if (patch) {
    const update = inputSchema(ctx, target, patch.without([relation.foreignKey]), 'patch', depth + 1, null);
    update.properties = { [key]: keySchema, ...(update.properties as Record<string, OpenApiSchema>) };
    update.required = [key, ...((update.required as string[] | undefined) ?? [])];
    update.description = `Updates this child (only the fields given).`;
    kinds.push(update);
  }
  if (target.exposed.has('delete')) {
    kinds.push({
      type: 'object',
      description: 'Deletes this child.',
      properties: { [key]: keySchema, _delete: { const: true } },
      required: [key, '_delete'],
      additionalProperties: false,
    });
  }
  return {
    type: 'array',
    maxItems: MAX_BULK_ITEMS,
    items: { oneOf: kinds },
    description:
      verb === 'put'
        ? `The whole set of ${target.name} of this record: an item with \`${key}\` updates that child, one without creates it, \`{"${key}": …, "_delete": true}\` deletes it, and children not listed are deleted. One transaction; each child's own validator, authentication and hooks apply; a \`${key}\` that is not a child of this record → 422 at its path.`
        : `Changes to ${target.name} of this record: an item with \`${key}\` updates that child, one without creates it, \`{"${key}": …, "_delete": true}\` deletes it; children not listed stay. One transaction; each child's own validator, authentication and hooks apply; a \`${key}\` that is not a child of this record → 422 at its path.`,
  };
}

/**
 * The belongsTo objects a POST item may carry (src/api/write/write.ts prepareParent): `{<key>}` refers
 * to an existing parent the caller can see, any other object is a new parent created first.
 */
function parentInputs(ctx: DocContext, resource: CompiledResource, depth: number, fixedKey: string | null) {
  const parents: { name: string; foreignKey: string; schema: OpenApiSchema }[] = [];
  if (depth >= MAX_NESTING_DEPTH) return parents;
  for (const name of resource.allowed) {
    const relation = resource.relations.get(name)!;
    const target = relation.target.resource;
    if (relation.type !== 'belongsTo' || !target || relation.foreignKey === fixedKey) continue;
    const key = relation.targetKey;
    const keySchema = target.obfuscated.has(key) ? { ...ctx.sqid } : typeSchema(target.columnTypes.get(key)!);
    const reference: OpenApiSchema = {
      type: 'object',
      description: `An existing ${target.name} record the caller can see (else 422).`,
      properties: { [key]: keySchema },
      required: [key],
      additionalProperties: false,
    };
    const create = target.served.has('post') ? target.validators.post : undefined;
    parents.push({
      name,
      foreignKey: relation.foreignKey,
      schema: create
        ? {
            oneOf: [reference, inputSchema(ctx, target, create, 'post', depth + 1, null)],
            description: `The ${target.name} record this one belongs to, instead of \`${relation.foreignKey}\`: \`{"${key}": ...}\` refers to an existing one; any other object creates it first, in the same transaction (its own authentication and ability apply).`,
          }
        : {
            ...reference,
            description: `The ${target.name} record this one belongs to, instead of \`${relation.foreignKey}\`.`,
          },
    });
  }
  return parents;
}

const VERB_TITLE: Record<WriteVerb, string> = { post: 'Create', put: 'Replace', patch: 'Update' };

function dataEnvelope(data: OpenApiSchema): OpenApiSchema {
  return {
    type: 'object',
    properties: { status: { const: 'success' }, data },
    required: ['status', 'data'],
    additionalProperties: false,
  };
}

function json(schema: OpenApiSchema, description: string, headers?: Record<string, unknown>) {
  return { description, ...(headers ? { headers } : {}), content: { [JSON_TYPE]: { schema } } };
}

/** Concurrency and idempotency headers (src/api/write/etag.ts and idempotency.ts). */
const ETAG_HEADER = {
  ETag: {
    description: 'The strong entity tag of the record, for `If-Match` and `If-None-Match`.',
    schema: { type: 'string' },
  },
};
const IF_MATCH = {
  name: 'If-Match',
  in: 'header',
  description:
    'Write only if the record still has one of these ETags (or any, with `*`); otherwise 412 and nothing is written.',
  schema: { type: 'string' },
};
const IF_NONE_MATCH = {
  name: 'If-None-Match',
  in: 'header',
  description: 'The ETag of the copy the client holds: 304 without a body while it is current.',
  schema: { type: 'string' },
};
const IDEMPOTENCY_KEY = {
  name: 'Idempotency-Key',
  in: 'header',
  description:
    'Makes the POST safe to retry (IETF draft "The Idempotency-Key HTTP Header Field"): kept with the caller, a hash of the request and its response for 24 hours. The same key with the same body replays the stored response (`Idempotency-Replayed: true`); with another body → 422; while the first request runs → 409.',
  schema: { type: 'string', minLength: 1, maxLength: 255 },
};

/** Problem responses by status: one component each. */
const ERROR_RESPONSES: Record<number, { name: string; description: string }> = {
  400: {
    name: 'BadRequest',
    description:
      'A query parameter the operation does not accept (named in `invalid_params`), or a body that is not JSON.',
  },
  401: {
    name: 'Unauthorized',
    description: 'No caller where one is required, or a bearer token that is not valid (on any operation).',
  },
  403: {
    name: 'Forbidden',
    description:
      'The bearer token lacks the ability this operation requires; on a tenant-scoped resource also: no active organization, or a role without the permission.',
  },
  404: { name: 'NotFound', description: 'No such record (or an id that is not a canonical key).' },
  409: {
    name: 'Conflict',
    description:
      'A unique or foreign-key constraint was violated, or (POST) the first request with this `Idempotency-Key` is still running.',
  },
  412: {
    name: 'PreconditionFailed',
    description: '`If-Match` names no current ETag of the record: it changed since it was read.',
  },
  413: {
    name: 'ContentTooLarge',
    description: `More than ${MAX_BULK_ITEMS} items in a bulk array or a nested relation, or a body too large.`,
  },
  415: { name: 'UnsupportedMediaType', description: 'The body must be JSON.' },
  422: {
    name: 'UnprocessableContent',
    description:
      'The payload failed validation (see `invalid_params`), a filter names an integer outside the range of its column, or (POST) the `Idempotency-Key` was used with another request.',
  },
  500: { name: 'InternalError', description: 'An unexpected error; details only in the server log.' },
};

/** Hooks may throw an HttpError with a status of their choice. */
const HOOK_ERROR = {
  name: 'HookError',
  description: 'A status chosen by a resource hook, as problem details.',
};

function errorResponses(codes: number[]): Record<string, unknown> {
  return Object.fromEntries(
    [...new Set(codes)]
      .sort((a, b) => a - b)
      .map((code) => [String(code), ref('responses', ERROR_RESPONSES[code]!.name)]),
  );
}

/** The resources (and verbs) a POST may also touch: nested children created, parents read or created. */
function relatedWrites(resource: CompiledResource, seen: Set<CompiledResource>): [CompiledResource, Verb][] {
  if (seen.has(resource)) return [];
  seen.add(resource);
  const found: [CompiledResource, Verb][] = [];
  for (const name of resource.allowed) {
    const relation = resource.relations.get(name)!;
    const target = relation.target.resource;
    if (!target) continue;
    if (relation.type === 'hasMany' && resource.nestedWritable.has(name)) found.push([target, 'post']);
    else if (relation.type === 'belongsTo') found.push([target, 'get'], [target, 'post']);
    else continue;
    found.push(...relatedWrites(target, seen));
  }
  return found;
}

function operation(
  resource: CompiledResource,
  verb: Verb,
  id: string,
  summary: string,
  details: string,
  codes: number[],
  responses: Record<string, unknown>,
  extra: Record<string, unknown> = {},
) {
  const ability = resource.abilities[verb];
  // A tenant-scoped resource always needs a caller.
  const required = resource.requiredAuth.has(verb) || resource.tenant !== null;
  // Nested children and parent objects bring their own resource's authentication (write.ts).
  const related = verb === 'post' ? relatedWrites(resource, new Set()) : [];
  const forbidden =
    required || related.some(([target, v]) => target.requiredAuth.has(v) || target.tenant !== null);
  const tenant = resource.tenant;
  const note =
    tenant !== null
      ? `Tenant-scoped by \`${tenant}\`: acts in the caller's active organization only (its rows alone are seen; writes set \`${tenant}\` and refuse another value, 422). Requires a caller with an active organization (none → 403) whose role holds the permission \`${ability}\` (or \`${resource.name}:*\`, or \`*\`), and, with a bearer token, the same ability on the token (both; else 403). No caller → 401.`
      : required
        ? `Requires a caller: a session, or a bearer token with the ability \`${ability}\` (or \`${resource.name}:*\`, or \`*\`). No caller → 401; a token without the ability → 403.`
        : 'No authentication required; a caller, when present, is known to the hooks.';
  return {
    tags: [resource.name],
    operationId: id,
    summary,
    description: `${details}\n\n${note}`,
    ...extra,
    responses: {
      ...responses,
      ...errorResponses([...codes, 401, ...(forbidden ? [403] : []), 500]),
      default: ref('responses', 'HookError'),
    },
    security: required
      ? [{ bearerAuth: [] }, { cookieAuth: [] }]
      : [{}, { bearerAuth: [] }, { cookieAuth: [] }],
    ...(required || tenant !== null ? { 'x-required-ability': ability } : {}),
    ...(tenant !== null ? { 'x-citadel-tenant': tenant } : {}),
  };
}

function pathsOf(ctx: DocContext, resource: CompiledResource) {
  const verbs = resource.served;
  const component = componentName(resource.name);
  const record = ref('schemas', component);
  const collection: Record<string, unknown> = {};
  const item: Record<string, unknown> = {};
  const keySchema = resource.pkObfuscated
    ? { type: 'string', pattern: ctx.sqid.pattern }
    : typeSchema(resource.columnTypes.get(resource.primaryKey)!);
  const idParameter = {
    name: 'id',
    in: 'path',
    required: true,
    description: `The record's \`${resource.primaryKey}\`.`,
    schema: keySchema,
  };

  if (verbs.has('get')) {
    collection.get = operation(
      resource,
      'get',
      `list${component}`,
      `List ${resource.name}`,
      'One page of records with the pagination envelope.',
      // A filter on an integer column names a value outside its range: 422 (src/api/request/filters.ts).
      [...resource.filterable].some(
        (column) =>
          !resource.obfuscated.has(column) &&
          ['integer', 'bigint'].includes(resource.columnTypes.get(column)!),
      )
        ? [400, 422]
        : [400],
      {
        200: json(
          {
            type: 'object',
            properties: {
              status: { const: 'success' },
              data: { type: 'array', items: record },
              pagination: ref('schemas', 'Pagination'),
            },
            required: ['status', 'data', 'pagination'],
            additionalProperties: false,
          },
          'A page of records.',
        ),
      },
      { parameters: listParameters(resource, component) },
    );
    item.get = operation(
      resource,
      'get',
      `read${component}`,
      `Read one of ${resource.name}`,
      'One record by its key. With `fields` (a partial record) no ETag is sent.',
      [400, 404],
      {
        200: json(dataEnvelope(record), 'The record.', ETAG_HEADER),
        304: {
          description: '`If-None-Match` names the current ETag: the copy held is current.',
          headers: ETAG_HEADER,
        },
      },
      { parameters: [...itemParameters(resource), IF_NONE_MATCH] },
    );
  }
  if (verbs.has('post')) {
    const input = ref('schemas', `${component}Create`);
    collection.post = operation(
      resource,
      'post',
      `create${component}`,
      `Create ${resource.name}`,
      `An object creates one record; an array (at most ${MAX_BULK_ITEMS} items) creates them all in one transaction, or none.`,
      [400, 409, 413, 415, 422],
      {
        201: json(
          dataEnvelope({ oneOf: [record, { type: 'array', items: record }] }),
          'The created record, or records for an array.',
          {
            ...ETAG_HEADER,
            'Idempotency-Replayed': {
              description: '`true` when this is the stored response of an earlier request with the same key.',
              schema: { type: 'string', enum: ['true'] },
            },
          },
        ),
      },
      {
        parameters: [IDEMPOTENCY_KEY],
        requestBody: {
          required: true,
          content: {
            [JSON_TYPE]: {
              schema: {
                oneOf: [input, { type: 'array', items: input, minItems: 1, maxItems: MAX_BULK_ITEMS }],
              },
            },
          },
        },
      },
    );
  }
  for (const verb of ['put', 'patch'] as const) {
    if (!verbs.has(verb)) continue;
    item[verb] = operation(
      resource,
      verb,
      `${verb === 'put' ? 'replace' : 'update'}${component}`,
      `${VERB_TITLE[verb]} one of ${resource.name}`,
      verb === 'put'
        ? 'Replaces every writable field (and the whole set of each child relation given).'
        : 'Changes only the fields (and the children) given.',
      [400, 404, 409, 412, 413, 415, 422],
      { 200: json(dataEnvelope(record), 'The saved record, with each child relation written.', ETAG_HEADER) },
      {
        parameters: [IF_MATCH],
        requestBody: {
          required: true,
          content: { [JSON_TYPE]: { schema: ref('schemas', `${component}${VERB_TITLE[verb]}`) } },
        },
      },
    );
  }
  if (verbs.has('delete')) {
    item.delete = operation(
      resource,
      'delete',
      `delete${component}`,
      `Delete one of ${resource.name}`,
      'Deletes the record.',
      [400, 404, 409, 412],
      {
        200: json(
          dataEnvelope({ type: 'object', properties: { id: keySchema }, required: ['id'] }),
          'The key of the deleted record.',
        ),
      },
      { parameters: [IF_MATCH] },
    );
  }
  const paths: Record<string, Record<string, unknown>> = {};
  if (Object.keys(collection).length > 0) paths[`/${resource.name}`] = collection;
  if (Object.keys(item).length > 0) paths[`/${resource.name}/{id}`] = { parameters: [idParameter], ...item };
  return paths;
}

const PROBLEM_SCHEMA: OpenApiSchema = {
  type: 'object',
  description: 'RFC 9457 problem details.',
  properties: {
    type: {
      type: 'string',
      description: 'A URI reference naming the problem type.',
      examples: ['about:blank'],
    },
    title: {
      type: 'string',
      description: 'The RFC 9110 reason phrase of the status.',
      examples: [problemTitle(422)],
    },
    status: { type: 'integer', examples: [422] },
    detail: { type: 'string' },
    instance: { type: 'string', description: 'The request path.' },
    invalid_params: {
      type: 'array',
      description:
        'One entry per problem; `name` is a query parameter, or a path into the payload such as `[1].title` or `comments[0].body`.',
      items: {
        type: 'object',
        properties: { name: { type: 'string', examples: ['comments[0].body'] }, reason: { type: 'string' } },
        required: ['name', 'reason'],
        additionalProperties: false,
      },
    },
  },
  required: ['type', 'title', 'status', 'detail', 'instance'],
  additionalProperties: false,
};

const PAGINATION_SCHEMA: OpenApiSchema = {
  type: 'object',
  properties: {
    page: { type: 'integer', minimum: 1 },
    limit: { type: 'integer', minimum: 1 },
    total: {
      type: ['integer', 'null'],
      minimum: 0,
      description: 'Null with `count=none`; the planner estimate with `count=estimated` on PostgreSQL.',
    },
    totalPages: { type: ['integer', 'null'], minimum: 0, description: 'Null with `count=none`.' },
    hasMore: { type: 'boolean', description: 'Whether a record exists past this page.' },
    nextPage: { type: ['integer', 'null'] },
    prevPage: { type: ['integer', 'null'] },
    nextCursor: {
      type: ['string', 'null'],
      description:
        'Send as `cursor` (with the same query) for the next page by keyset; null on the last page.',
    },
    totalEstimated: {
      type: 'boolean',
      description: 'Only with `count=estimated`: whether `total` is an estimate.',
    },
  },
  required: ['page', 'limit', 'total', 'totalPages', 'hasMore', 'nextPage', 'prevPage', 'nextCursor'],
  additionalProperties: false,
};

function build(
  compiled: ReadonlyMap<string, CompiledResource>,
  api: ApiConfig,
  version: string,
  ctx: DocContext,
) {
  const resources = [...compiled.values()].filter((resource) => publishedIn(resource.config, version));
  const published = new Set(resources.map((resource) => resource.name));
  const schemas: Record<string, OpenApiSchema> = {};
  const paths: Record<string, unknown> = {};
  for (const resource of resources) {
    const component = componentName(resource.name);
    schemas[component] = recordSchema(ctx, resource, published, true);
    if (resource.filterable.size > 0) {
      const name = filterComponent(component);
      schemas[name] = filterTreeSchema(resource, `#/components/schemas/${name}`);
    }
    for (const verb of ['post', 'put', 'patch'] as const) {
      if (!resource.served.has(verb)) continue;
      schemas[`${component}${VERB_TITLE[verb]}`] = inputSchema(
        ctx,
        resource,
        resource.validators[verb]!,
        verb,
        0,
        null,
      );
    }
    Object.assign(paths, pathsOf(ctx, resource));
  }
  schemas.Pagination = PAGINATION_SCHEMA;
  schemas.Problem = PROBLEM_SCHEMA;
  return {
    openapi: '3.1.0',
    info: {
      title: api.apiName,
      version,
      description: `The ${api.apiName} resource API, version ${version}. Errors are RFC 9457 problem details.`,
    },
    servers: [{ url: `${api.apiBaseUrl}/${version}` }],
    tags: resources.map((resource) => ({
      name: resource.name,
      ...(resource.config.description ? { description: resource.config.description } : {}),
    })),
    paths,
    components: {
      schemas,
      responses: Object.fromEntries(
        [...Object.values(ERROR_RESPONSES), HOOK_ERROR].map(({ name, description }) => [
          name,
          { description, content: { [PROBLEM]: { schema: ref('schemas', 'Problem') } } },
        ]),
      ),
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description: 'A personal access token: `Authorization: Bearer <token>`.',
        },
        cookieAuth: {
          type: 'apiKey',
          in: 'cookie',
          name: SESSION_COOKIE,
          description: 'The session cookie of a signed-in browser.',
        },
      },
    },
  };
}

const cache = new WeakMap<
  ReadonlyMap<string, CompiledResource>,
  Map<string, Readonly<Record<string, unknown>>>
>();

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/** How a document is built besides the API: its OpenAPI version and the deployment's id settings. */
export interface DocumentOptions {
  /** Picks the compiled instance to share; the document is the same for every dialect. */
  dialect?: Dialect;
  /** `3.0` (3.0.3) or `3.1` (3.1.0); default: the API's `openapi`, else 3.0. */
  openapi?: OpenApiVersion;
  /** SQIDS_ALPHABET and SQIDS_MIN_LENGTH: the pattern of obfuscated ids (default: Sqids' alphabet, 8). */
  ids?: IdSettings;
}

/**
 * The OpenAPI document of one published version (3.0.3 unless 3.1 is asked for), built from the
 * same compiled resources the engine serves, once per configuration, version and options; frozen:
 * callers copy before changing it.
 */
export function buildOpenApiDocument(
  api: ApiConfig,
  version: string,
  options: DocumentOptions = {},
): Readonly<Record<string, unknown>> {
  const known = api.publications.map((publication) => publication.version);
  if (!known.includes(version)) throw new UnknownApiVersionError(version, known);
  const openapi = options.openapi ?? api.openapi ?? DEFAULT_OPENAPI_VERSION;
  const compiled = compileApi(api, options.dialect ?? 'sqlite');
  const sqid = sqidSchema(options.ids);
  const key = `${version}\u0000${openapi}\u0000${String(sqid.pattern)}`;
  let perVersion = cache.get(compiled);
  if (!perVersion) cache.set(compiled, (perVersion = new Map()));
  let document = perVersion.get(key);
  if (!document) {
    document = deepFreeze(finishOpenApiDocument(build(compiled, api, version, { sqid }), openapi));
    perVersion.set(key, document);
  }
  return document;
}
