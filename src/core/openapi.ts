/**
 * OpenAPI versions of the generated documents: 3.0.3 by default, 3.1.0 when
 * the configuration says `openapi: '3.1'`. Generators build one 3.1 document (its schemas are JSON
 * Schema 2020-12, what TypeBox produces); `finishOpenApiDocument` gives it the chosen version,
 * converting to 3.0.3 with `toOpenApi30`. No capability code here: the resource API's document and
 * the auth endpoints' document share it.
 */

import { ConfigError } from './errors.ts';

/** The OpenAPI version a configuration asks for: `3.0` (3.0.3, the default) or `3.1` (3.1.0). */
export type OpenApiVersion = '3.0' | '3.1';
export const DEFAULT_OPENAPI_VERSION: OpenApiVersion = '3.0';

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Keywords holding one schema, a list of schemas, or a map of schemas (JSON Schema 2020-12). */
const ONE_SCHEMA = ['not', 'additionalProperties', 'items'];
const SCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf'];
const SCHEMA_MAPS = ['properties'];
/**
 * 2020-12 keywords that OpenAPI 3.0 has no word for. They are left out, so a 3.0 document may
 * accept more than its 3.1 twin where a schema uses them (the generators here do not).
 */
const DROPPED = new Set([
  '$schema',
  '$id',
  '$anchor',
  '$comment',
  '$defs',
  'definitions',
  'contentMediaType',
  'contentSchema',
  'if',
  'then',
  'else',
  'dependentRequired',
  'dependentSchemas',
  'unevaluatedItems',
  'unevaluatedProperties',
  'patternProperties',
  'propertyNames',
  'contains',
  'minContains',
  'maxContains',
  'prefixItems',
  '$dynamicRef',
  '$dynamicAnchor',
]);

/** Keywords that describe without constraining: `oneOf: [X, null]` with them still collapses. */
const ANNOTATIONS = new Set([
  'description',
  'title',
  'readOnly',
  'writeOnly',
  'deprecated',
  'example',
  'default',
]);

const isNullSchema = (schema: unknown) =>
  isObject(schema) &&
  (schema.type === 'null' ||
    (Array.isArray(schema.type) && schema.type.length === 1 && schema.type[0] === 'null')) &&
  Object.keys(schema).every((key) => key === 'type' || key === 'description' || key === 'title');

/** `null` alone, as OpenAPI 3.0.3 says it: a nullable type whose only value is null. */
function nullOnly(description?: unknown): Json {
  return {
    type: 'object',
    nullable: true,
    enum: [null],
    ...(description === undefined ? {} : { description }),
  };
}

/** `schema` that also takes null (nullable needs a type beside it; an enum must list null). */
function withNull(schema: Json): Json {
  if (typeof schema.type === 'string' && schema.$ref === undefined && schema.allOf === undefined) {
    const out: Json = { ...schema, nullable: true };
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
    return out;
  }
  if (Object.keys(schema).length === 0) return schema; // any value: null included
  const { description, ...rest } = schema;
  return {
    oneOf: [rest, nullOnly()],
    ...(description === undefined ? {} : { description }),
  };
}

/**
 * A JSON Schema 2020-12 (OpenAPI 3.1) Schema Object as an OpenAPI 3.0.3 one:
 * - `type: [t, 'null']` → `type: t, nullable: true`; several types → `anyOf`; `{type: 'null'}`
 *   branches of `oneOf`/`anyOf` → the other branch made nullable (or a null-only branch);
 * - `const: v` → `enum: [v]`; `examples: [a, …]` → `example: a`;
 * - numeric `exclusiveMinimum`/`exclusiveMaximum` → `minimum`/`maximum` with the boolean form;
 * - `contentEncoding: base64` → `format: byte`;
 * - boolean schemas → `{}` / `{not: {}}`; an array without `items` gets `items: {}`;
 * - `$ref` with other keywords (ignored beside `$ref` in 3.0) → `allOf: [{$ref}]` plus them;
 * - keywords 3.0 does not have are left out (see DROPPED); a tuple keeps its length bounds.
 */
export function toOpenApi30Schema(input: unknown): Json {
  if (input === true || input === undefined) return {};
  if (input === false) return { not: {} };
  if (!isObject(input)) return {};
  if (isNullSchema(input)) return nullOnly(input.description);
  let out: Json = {};
  let nullable = false;
  for (const [key, value] of Object.entries(input)) {
    if (DROPPED.has(key) || value === undefined) continue;
    if (key === 'type' && Array.isArray(value)) {
      const types = value.filter((type) => type !== 'null');
      nullable = types.length < value.length;
      if (types.length === 1) out.type = types[0];
      else if (types.length > 1) out.anyOf = types.map((type) => ({ type }));
      else Object.assign(out, { type: 'object', enum: [null] }); // `type: ['null']`: null only
    } else if (key === 'const') out.enum = [value];
    else if (key === 'examples') {
      if (Array.isArray(value) && value.length > 0) out.example = value[0];
    } else if (key === 'contentEncoding') {
      if (value === 'base64') out.format = 'byte';
    } else if (key === 'exclusiveMinimum' || key === 'exclusiveMaximum') {
      if (typeof value === 'boolean') out[key] = value;
      else if (typeof value === 'number') {
        const bound = key === 'exclusiveMinimum' ? 'minimum' : 'maximum';
        const other = input[bound];
        const stricter =
          typeof other !== 'number' || (key === 'exclusiveMinimum' ? value >= other : value <= other);
        if (stricter) Object.assign(out, { [bound]: value, [key]: true });
      }
    } else if ((key === 'minimum' || key === 'maximum') && bound30Taken(input, key)) continue;
    else if (SCHEMA_LISTS.includes(key) && Array.isArray(value)) out[key] = value;
    else if (ONE_SCHEMA.includes(key)) {
      out[key] =
        key === 'additionalProperties' && typeof value === 'boolean' ? value : toOpenApi30Schema(value);
    } else if (SCHEMA_MAPS.includes(key) && isObject(value))
      out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toOpenApi30Schema(v)]));
    else out[key] = value;
  }
  for (const key of SCHEMA_LISTS) {
    const list = out[key];
    if (!Array.isArray(list)) continue;
    const hasNull = key !== 'allOf' && list.some(isNullSchema);
    const branches = list.filter((branch) => !(hasNull && isNullSchema(branch))).map(toOpenApi30Schema);
    const others = Object.keys(out).filter((other) => other !== key && !ANNOTATIONS.has(other));
    if (hasNull && branches.length === 1 && others.length === 0) {
      // `oneOf: [X, null]` alone: X, nullable.
      delete out[key];
      out = { ...withNull(branches[0]!), ...out };
      continue;
    }
    out[key] = hasNull ? [...branches, nullOnly()] : branches;
  }
  if (Array.isArray(input.prefixItems)) {
    // No tuples in 3.0: an array whose items are any of the listed kinds (and of `items`, which
    // 2020-12 applies after them), at most as many as listed when `items` is false.
    const kinds = input.prefixItems.map(toOpenApi30Schema);
    if (input.items === false) {
      out.items = kinds.length === 1 ? kinds[0] : { anyOf: kinds };
      out.maxItems = Math.min(kinds.length, typeof out.maxItems === 'number' ? out.maxItems : Infinity);
    } else if (input.items === undefined || input.items === true) out.items = {};
    else out.items = { anyOf: [...kinds, toOpenApi30Schema(input.items)] };
  }
  if (out.type === 'array' && out.items === undefined) out.items = {};
  if (typeof out.$ref === 'string' && Object.keys(out).length > 1) {
    const { $ref, ...rest } = out;
    out = { allOf: [{ $ref }], ...rest };
  }
  return nullable ? withNull(out) : out;
}

/** Whether a numeric exclusive bound replaces `minimum`/`maximum` (the stricter one wins). */
function bound30Taken(input: Json, key: 'minimum' | 'maximum'): boolean {
  const exclusive = input[key === 'minimum' ? 'exclusiveMinimum' : 'exclusiveMaximum'];
  const value = input[key];
  if (typeof exclusive !== 'number' || typeof value !== 'number') return false;
  return key === 'minimum' ? exclusive >= value : exclusive <= value;
}

/** Walk an OpenAPI document, converting every Schema Object (values of `schema` and component schemas). */
function convertDocument(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(convertDocument);
  if (!isObject(node)) return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'schema' && isObject(value)) out[key] = toOpenApi30Schema(value);
    else out[key] = convertDocument(value);
  }
  return out;
}

/**
 * An OpenAPI 3.1.0 document as 3.0.3: every Schema Object converted by `toOpenApi30Schema`, and
 * the 3.1-only parts left out (`jsonSchemaDialect`, `webhooks`, `components.pathItems`,
 * `info.summary`, `info.license.identifier`). Parameter and media type `examples` (maps of Example
 * Objects) are the same in both versions and stay.
 */
export function toOpenApi30(document: Readonly<Json>): Json {
  const { openapi: _version, jsonSchemaDialect: _dialect, webhooks: _webhooks, ...rest } = document;
  const converted = convertDocument(rest) as Json;
  if (isObject(converted.info)) {
    const { summary: _summary, ...info } = converted.info;
    if (isObject(info.license)) {
      const { identifier: _identifier, ...license } = info.license;
      info.license = license;
    }
    converted.info = info;
  }
  if (isObject(converted.components)) {
    const { pathItems: _pathItems, schemas, ...components } = converted.components;
    converted.components = {
      ...(isObject(schemas)
        ? { schemas: Object.fromEntries(Object.entries(schemas).map(([k, v]) => [k, toOpenApi30Schema(v)])) }
        : {}),
      ...components,
    };
  }
  return { openapi: '3.0.3', ...converted, paths: converted.paths ?? {} };
}

/** A generated 3.1 document in the version asked for. */
export function finishOpenApiDocument(
  document: Json,
  version: OpenApiVersion = DEFAULT_OPENAPI_VERSION,
): Json {
  return version === '3.1' ? { ...document, openapi: '3.1.0' } : toOpenApi30(document);
}

/** Check a configured version: `3.0` or `3.1` (also `3.0.3` and `3.1.0`). */
export function parseOpenApiVersion(value: unknown, where: string): OpenApiVersion {
  if (value === undefined) return DEFAULT_OPENAPI_VERSION;
  if (value === '3.0' || value === '3.0.3') return '3.0';
  if (value === '3.1' || value === '3.1.0') return '3.1';
  throw new ConfigError(`${where} must be '3.0' or '3.1', not ${JSON.stringify(value)}`);
}
