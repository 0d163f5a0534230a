import { DEFAULT_MAX_DERIVE_DEPTH, MAX_EMBEDDED_ROWS } from '../derive-limits.ts';
import type { ApiConfig, ColumnConfig, RelationConfig, ResourceConfig, Verb, WriteVerb } from '../types.ts';
import { toOpenApiSchema, type OpenApiSchema } from './json-schema.ts';
import {
  abilityFor,
  componentName,
  isObfuscated,
  primaryKeyOf,
  requiresAuth,
  resourcesOf,
  searchableOf,
  servedVerbs,
  sortableOf,
  validatorOf,
  visibleColumns,
} from './resources.ts';

/** Thrown for a version the API does not publish (the CLI prints its message as one line). */
export class UnknownApiVersionError extends Error {
  constructor(version: string, known: string[]) {
    super(`unknown API version "${version}" (published: ${known.join(', ') || 'none'})`);
    this.name = 'UnknownApiVersionError';
  }
}

/** Largest bulk array the engine accepts (contract section 5: 413 above). */
export const MAX_BULK_ITEMS = 1000;
const SESSION_COOKIE = 'citadel_session';
const PROBLEM = 'application/problem+json';
const JSON_TYPE = 'application/json';

const ref = (kind: 'schemas' | 'responses' | 'parameters', name: string) => ({
  $ref: `#/components/${kind}/${name}`,
});

/** An obfuscated key as the client sees it: never an integer (contract section 5). */
const SQID: OpenApiSchema = {
  type: 'string',
  description: 'Obfuscated key (Sqids): the canonical encoding of one number.',
  example: 'Uk',
};

function columnSchema(resource: ResourceConfig, name: string, column: ColumnConfig): OpenApiSchema {
  if (isObfuscated(resource, name)) {
    return {
      ...SQID,
      ...(column.description ? { description: `${column.description} (obfuscated key)` } : {}),
      ...(column.nullable ? { nullable: true } : {}),
      ...(column.readOnly ? { readOnly: true } : {}),
    };
  }
  const schema: OpenApiSchema = (() => {
    switch (column.type) {
      case 'integer':
        return { type: 'integer' };
      case 'number':
        return { type: 'number' };
      case 'boolean':
        return { type: 'boolean' };
      case 'datetime':
        return { type: 'string', format: 'date-time' };
      default:
        return { type: 'string' };
    }
  })();
  if (column.nullable) schema.nullable = true;
  if (column.readOnly) schema.readOnly = true;
  if (column.description) schema.description = column.description;
  return schema;
}

/** A record as responses carry it: its visible columns (plus derived relations when published). */
function recordSchema(
  resource: ResourceConfig,
  byName: Map<string, ResourceConfig>,
  published: Set<string>,
  withRelations: boolean,
): OpenApiSchema {
  const properties: Record<string, OpenApiSchema> = {};
  const columns = visibleColumns(resource);
  for (const [name, column] of columns) properties[name] = columnSchema(resource, name, column);
  if (withRelations) {
    for (const relationName of resource.allowedRelations ?? []) {
      const relation = resource.relations?.[relationName];
      if (!relation) continue;
      const target = relatedSchema(relation, byName, published);
      properties[relationName] =
        relation.type === 'hasMany'
          ? {
              type: 'array',
              items: target,
              description: `Embedded when requested with \`derive=${relationName}\`.`,
            }
          : {
              allOf: [target],
              nullable: true,
              description: `Embedded when requested with \`derive=${relationName}\`.`,
            };
    }
  }
  return {
    type: 'object',
    ...(resource.description ? { description: resource.description } : {}),
    properties,
    required: columns.map(([name]) => name),
  };
}

/** The other side of a relation: a component when published in this version, else inline. */
function relatedSchema(
  relation: RelationConfig,
  byName: Map<string, ResourceConfig>,
  published: Set<string>,
): OpenApiSchema {
  const target = relation.resource ? byName.get(relation.resource) : undefined;
  if (target && published.has(target.name)) return ref('schemas', componentName(target.name));
  if (target) return recordSchema(target, byName, published, false);
  // A plain table (for example `users` as a post's author): only the listed columns, obfuscated ones as strings.
  const properties: Record<string, OpenApiSchema> = {};
  for (const column of relation.columns ?? []) {
    properties[column] = relation.obfuscatedFields?.includes(column)
      ? { ...SQID }
      : { description: `Column \`${column}\` of \`${relation.table ?? 'the related table'}\`.` };
  }
  return { type: 'object', properties };
}

/** The validator of a write verb, as OpenAPI, with obfuscated keys as strings. */
function inputSchema(
  resource: ResourceConfig,
  verb: WriteVerb,
  byName: Map<string, ResourceConfig>,
  nested: { dropRequired?: string; depth?: number } = {},
): OpenApiSchema | undefined {
  const validator = validatorOf(resource, verb);
  if (!validator) return undefined;
  const schema = toOpenApiSchema(validator);
  const properties = (schema.properties ?? {}) as Record<string, OpenApiSchema>;
  for (const field of resource.obfuscatedFields ?? []) {
    const property = properties[field];
    if (!property) continue;
    properties[field] = {
      ...SQID,
      ...(property.nullable ? { nullable: true } : {}),
      ...(typeof property.description === 'string'
        ? { description: `${property.description} (obfuscated key)` }
        : {}),
    };
  }
  if (nested.dropRequired && Array.isArray(schema.required)) {
    schema.required = (schema.required as string[]).filter((name) => name !== nested.dropRequired);
    if ((schema.required as string[]).length === 0) delete schema.required;
  }
  // Children written in the same transaction, under their relation names.
  if (verb === 'post' && !nested.dropRequired) {
    for (const relationName of resource.allowedRelations ?? []) {
      const relation = resource.relations?.[relationName];
      const child =
        relation?.type === 'hasMany' && relation.resource ? byName.get(relation.resource) : undefined;
      if (!relation || !child) continue;
      const childSchema = inputSchema(child, 'post', byName, {
        dropRequired: relation.foreignKey,
        depth: (nested.depth ?? 0) + 1,
      });
      if (!childSchema) continue;
      properties[relationName] = {
        type: 'array',
        items: childSchema,
        description: `Child records created with this one, all or nothing (\`${relation.foreignKey}\` comes from the parent).`,
      };
    }
  }
  // Parents under belongsTo relation names: a reference to an existing one, or a new one.
  const parents = verb === 'post' ? parentInputs(resource, byName, nested) : [];
  for (const parent of parents) properties[parent.name] = parent.schema;
  schema.type = 'object';
  schema.properties = properties;
  if (parents.length > 0) {
    // The foreign key is required only when its relation object is absent: say so, do not require it.
    const filled = new Set(parents.map((parent) => parent.foreignKey));
    if (Array.isArray(schema.required)) {
      schema.required = (schema.required as string[]).filter((name) => !filled.has(name));
      if ((schema.required as string[]).length === 0) delete schema.required;
    }
    for (const parent of parents) {
      const key = properties[parent.foreignKey];
      if (key)
        properties[parent.foreignKey] = {
          ...key,
          description: `${typeof key.description === 'string' ? `${key.description} ` : ''}Required unless \`${parent.name}\` is given; never both.`,
        };
    }
  }
  // Unknown fields are rejected by the engine (no mass assignment).
  if (schema.additionalProperties === undefined) schema.additionalProperties = false;
  return schema;
}

/** Deepest nesting the engine accepts (src/api/write.ts): the document stops there too. */
const MAX_NESTING_DEPTH = 5;

/**
 * The belongsTo objects a POST item may carry: `{<key>}` refers to an existing parent the caller
 * can see, any other object is a new parent validated by its resource's create validator.
 */
function parentInputs(
  resource: ResourceConfig,
  byName: Map<string, ResourceConfig>,
  nested: { dropRequired?: string; depth?: number },
): { name: string; foreignKey: string; schema: OpenApiSchema }[] {
  const depth = nested.depth ?? 0;
  if (depth >= MAX_NESTING_DEPTH) return [];
  const parents: { name: string; foreignKey: string; schema: OpenApiSchema }[] = [];
  for (const name of resource.allowedRelations ?? []) {
    const relation = resource.relations?.[name];
    const target =
      relation?.type === 'belongsTo' && relation.resource ? byName.get(relation.resource) : undefined;
    // A nested child's foreign key comes from the parent it is nested in.
    if (!relation || !target || relation.foreignKey === nested.dropRequired) continue;
    const key = relation.targetKey ?? primaryKeyOf(target);
    const reference: OpenApiSchema = {
      type: 'object',
      description: `An existing ${target.name} record the caller can see (else 422).`,
      properties: { [key]: columnSchema(target, key, { ...target.columns[key]!, readOnly: false }) },
      required: [key],
      additionalProperties: false,
    };
    const create =
      servedVerbs(target).has('post') && inputSchema(target, 'post', byName, { depth: depth + 1 });
    parents.push({
      name,
      foreignKey: relation.foreignKey,
      schema: create
        ? {
            oneOf: [reference, create],
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
    properties: { status: { type: 'string', enum: ['success'] }, data },
    required: ['status', 'data'],
  };
}

function json(schema: OpenApiSchema, description: string) {
  return { description, content: { [JSON_TYPE]: { schema } } };
}

function securityFor(resource: ResourceConfig, verb: Verb) {
  const ability = abilityFor(resource, verb);
  if (requiresAuth(resource, verb)) {
    return {
      security: [{ bearerAuth: [] }, { cookieAuth: [] }],
      'x-required-ability': ability,
      note: `Requires a caller: a session, or a bearer token with the ability \`${ability}\` (or \`${resource.name}:*\`, or \`*\`). No caller → 401; a token without the ability → 403.`,
    };
  }
  // Anonymous callers are allowed; a caller, when present, is known to the hooks.
  return { security: [{}, { bearerAuth: [] }, { cookieAuth: [] }], note: 'No authentication required.' };
}

function errorResponses(codes: number[]): Record<string, unknown> {
  const names: Record<number, string> = {
    400: 'BadRequest',
    401: 'Unauthorized',
    403: 'Forbidden',
    404: 'NotFound',
    409: 'Conflict',
    413: 'PayloadTooLarge',
    422: 'ValidationFailed',
    500: 'InternalError',
  };
  return Object.fromEntries(codes.map((code) => [String(code), ref('responses', names[code]!)]));
}

function operation(
  resource: ResourceConfig,
  verb: Verb,
  id: string,
  summary: string,
  details: string,
  codes: number[],
  responses: Record<string, unknown>,
  extra: Record<string, unknown> = {},
) {
  const { security, note, ...ability } = securityFor(resource, verb);
  const authCodes = requiresAuth(resource, verb) ? [401, 403] : [];
  return {
    tags: [resource.name],
    operationId: id,
    summary,
    description: `${details}\n\n${note}`,
    ...extra,
    responses: { ...responses, ...errorResponses([...codes, ...authCodes, 500].sort((a, b) => a - b)) },
    security,
    ...ability,
  };
}

/** Equality filters (`?status=published`): one query parameter per `filterable` column. */
function filterParameters(resource: ResourceConfig): unknown[] {
  return (resource.filterable ?? []).map((name) => {
    const column = resource.columns[name]!;
    const schema: OpenApiSchema = isObfuscated(resource, name)
      ? { type: 'string' }
      : column.type === 'integer'
        ? { type: 'integer' }
        : column.type === 'number'
          ? { type: 'number' }
          : column.type === 'boolean'
            ? { type: 'boolean' }
            : column.type === 'datetime'
              ? { type: 'string', format: 'date-time' }
              : { type: 'string' };
    const what = isObfuscated(resource, name)
      ? 'the public (obfuscated) id; anything else → 400'
      : column.type === 'integer'
        ? 'an integer; anything else → 400'
        : column.type === 'boolean'
          ? '`true` or `false`; anything else → 400'
          : 'the exact stored value';
    return {
      name,
      in: 'query',
      description: `Only records whose \`${name}\` equals this value: ${what}.${column.description ? ` ${column.description}` : ''}`,
      schema,
    };
  });
}

function listParameters(resource: ResourceConfig): unknown[] {
  const maxLimit = resource.maxLimit ?? 100;
  const defaultLimit = Math.min(resource.defaultLimit ?? 20, maxLimit);
  const sortable = sortableOf(resource);
  const searchable = searchableOf(resource);
  const relations = resource.allowedRelations ?? [];
  const parameters: unknown[] = [
    {
      name: 'page',
      in: 'query',
      description: 'Page number, from 1.',
      schema: { type: 'integer', minimum: 1, default: 1 },
    },
    {
      name: 'limit',
      in: 'query',
      description: `Records per page. Above ${maxLimit} it is lowered to ${maxLimit} (reported in \`pagination.limit\`).`,
      schema: { type: 'integer', minimum: 1, default: defaultLimit },
    },
    {
      name: 'sort',
      in: 'query',
      description: `Comma-separated fields, \`-\` for descending; ties are broken by the primary key. Sortable: ${sortable.map((f) => `\`${f}\``).join(', ') || 'none'}.`,
      schema: { type: 'string' },
      ...(sortable[0] ? { example: `-${sortable[0]}` } : {}),
    },
  ];
  if (searchable.length > 0) {
    parameters.push({
      name: 'search',
      in: 'query',
      description: `Case-insensitive substring over ${searchable.map((f) => `\`${f}\``).join(', ')}; \`%\` and \`_\` match literally.`,
      schema: { type: 'string' },
    });
  }
  parameters.push(...filterParameters(resource));
  if (relations.length > 0) {
    parameters.push({
      name: 'derive',
      in: 'query',
      description: `Comma-separated relations to embed: ${relations.map((r) => `\`${r}\``).join(', ')}; dotted paths embed deeper (for example \`${relations[0]}.x\`) where each level allows it, at most ${resource.maxDeriveDepth ?? DEFAULT_MAX_DERIVE_DEPTH} levels. A response embeds at most ${MAX_EMBEDDED_ROWS} related rows in all (a row shared by several parents counts once per parent); above either limit the answer is 400.`,
      'x-max-depth': resource.maxDeriveDepth ?? DEFAULT_MAX_DERIVE_DEPTH,
      'x-max-embedded-rows': MAX_EMBEDDED_ROWS,
      schema: { type: 'string' },
    });
  }
  return parameters;
}

function deriveParameterOnly(resource: ResourceConfig): unknown[] {
  return listParameters(resource).filter((p) => (p as { name: string }).name === 'derive');
}

function pathsOf(resource: ResourceConfig): Record<string, Record<string, unknown>> {
  const verbs = servedVerbs(resource);
  const component = componentName(resource.name);
  const record = ref('schemas', component);
  const collection: Record<string, unknown> = {};
  const item: Record<string, unknown> = {};
  const key = primaryKeyOf(resource);
  const idParameter = {
    name: 'id',
    in: 'path',
    required: true,
    description: `The record's \`${key}\`.`,
    schema: isObfuscated(resource, key) ? { type: 'string' } : { type: 'integer' },
  };

  if (verbs.has('get')) {
    collection.get = operation(
      resource,
      'get',
      `list${component}`,
      `List ${resource.name}`,
      'One page of records with the pagination envelope.',
      [400],
      {
        200: json(
          {
            type: 'object',
            properties: {
              status: { type: 'string', enum: ['success'] },
              data: { type: 'array', items: record },
              pagination: ref('schemas', 'Pagination'),
            },
            required: ['status', 'data', 'pagination'],
          },
          'A page of records.',
        ),
      },
      { parameters: listParameters(resource) },
    );
    item.get = operation(
      resource,
      'get',
      `read${component}`,
      `Read one of ${resource.name}`,
      'One record by its key.',
      [400, 404],
      {
        200: json(dataEnvelope(record), 'The record.'),
      },
      { parameters: deriveParameterOnly(resource) },
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
      [400, 409, 413, 422],
      {
        201: json(
          dataEnvelope({ oneOf: [record, { type: 'array', items: record }] }),
          'The created record, or records for an array.',
        ),
      },
      {
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
      verb === 'put' ? 'Replaces every writable field.' : 'Changes only the fields given.',
      [400, 404, 409, 422],
      {
        200: json(dataEnvelope(record), 'The saved record.'),
      },
      {
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
      [400, 404, 409],
      {
        200: json(
          dataEnvelope({ type: 'object', properties: { id: idParameter.schema }, required: ['id'] }),
          'The key of the deleted record.',
        ),
      },
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
    type: { type: 'string', description: 'A URI reference naming the problem type.', example: 'about:blank' },
    title: { type: 'string', example: 'Unprocessable Content' },
    status: { type: 'integer', example: 422 },
    detail: { type: 'string' },
    instance: { type: 'string', description: 'The request path.' },
    invalid_params: {
      type: 'array',
      description:
        'Validation failures, one per field; `name` is a path into the payload such as `[1].title` or `comments[0].body`.',
      items: {
        type: 'object',
        properties: { name: { type: 'string', example: 'comments[0].body' }, reason: { type: 'string' } },
        required: ['name', 'reason'],
      },
    },
  },
  required: ['type', 'title', 'status'],
};

const ERROR_RESPONSES: Record<string, string> = {
  BadRequest: 'Malformed request: bad query parameter (page, limit, sort, derive) or invalid JSON.',
  Unauthorized: 'No caller: sign in or send a bearer token.',
  Forbidden: 'The bearer token lacks the ability this operation requires.',
  NotFound: 'No such record (or an id that is not a canonical key).',
  Conflict: 'A unique or foreign-key constraint was violated.',
  PayloadTooLarge: `More than ${MAX_BULK_ITEMS} items in a bulk array.`,
  ValidationFailed: 'The payload failed validation; see `invalid_params`.',
  InternalError: 'An unexpected error; details only in the server log.',
};

function build(api: ApiConfig, version: string): Record<string, unknown> {
  const resources = resourcesOf(api, version);
  const byName = new Map(api.resources.map((resource) => [resource.name, resource]));
  const published = new Set(resources.map((resource) => resource.name));
  const schemas: Record<string, OpenApiSchema> = {};
  const paths: Record<string, unknown> = {};
  for (const resource of resources) {
    const component = componentName(resource.name);
    schemas[component] = recordSchema(resource, byName, published, true);
    for (const verb of ['post', 'put', 'patch'] as const) {
      if (!servedVerbs(resource).has(verb)) continue;
      const input = inputSchema(resource, verb, byName);
      if (input) schemas[`${component}${VERB_TITLE[verb]}`] = input;
    }
    Object.assign(paths, pathsOf(resource));
  }
  schemas.Pagination = {
    type: 'object',
    properties: {
      page: { type: 'integer' },
      limit: { type: 'integer' },
      total: { type: 'integer' },
      totalPages: { type: 'integer' },
      hasMore: { type: 'boolean' },
      nextPage: { type: 'integer', nullable: true },
      prevPage: { type: 'integer', nullable: true },
    },
    required: ['page', 'limit', 'total', 'totalPages', 'hasMore', 'nextPage', 'prevPage'],
  };
  schemas.Problem = PROBLEM_SCHEMA;
  const base = (api.apiBaseUrl || '/api').replace(/\/+$/, '');
  return {
    openapi: '3.0.3',
    info: {
      title: api.apiName,
      version,
      description: `The ${api.apiName} resource API, version ${version}. Errors are RFC 9457 problem details.`,
    },
    servers: [{ url: `${base}/${version}` }],
    tags: resources.map((resource) => ({
      name: resource.name,
      ...(resource.description ? { description: resource.description } : {}),
    })),
    paths,
    components: {
      schemas,
      responses: Object.fromEntries(
        Object.entries(ERROR_RESPONSES).map(([name, description]) => [
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

const cache = new WeakMap<ApiConfig, Map<string, Readonly<Record<string, unknown>>>>();

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/**
 * The OpenAPI 3.0.3 document of one published version, built once per configuration and version
 * (frozen: callers copy before changing it).
 */
export function buildOpenApiDocument(api: ApiConfig, version: string): Readonly<Record<string, unknown>> {
  const known = api.publications.map((publication) => publication.version);
  if (!known.includes(version)) throw new UnknownApiVersionError(version, known);
  let perVersion = cache.get(api);
  if (!perVersion) cache.set(api, (perVersion = new Map()));
  let document = perVersion.get(version);
  if (!document) perVersion.set(version, (document = deepFreeze(build(api, version))));
  return document;
}
