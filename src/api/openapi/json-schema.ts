/**
 * TypeBox schema → OpenAPI 3.1 Schema Object. OpenAPI 3.1 schemas are JSON Schema 2020-12, which
 * TypeBox produces already: the conversion drops TypeBox's symbol keys (only string keys are
 * copied), maps its non-JSON types (Date, Uint8Array) to how they travel in JSON, and turns
 * draft-7 tuple `items: [...]` into `prefixItems`.
 */
export type OpenApiSchema = Record<string, unknown>;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Keywords whose value is a schema, a list of schemas, or a map of schemas. */
const ONE_SCHEMA = new Set([
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'additionalProperties',
]);
const SCHEMA_LISTS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);

export function toOpenApiSchema(input: unknown): OpenApiSchema {
  if (input === true || input === undefined) return {};
  if (input === false) return { not: {} };
  if (!isObject(input)) return {};
  const out: OpenApiSchema = {};
  for (const [key, value] of Object.entries(input)) {
    if (value === undefined || typeof value === 'function') continue;
    if (ONE_SCHEMA.has(key)) out[key] = typeof value === 'boolean' ? value : toOpenApiSchema(value);
    else if (SCHEMA_LISTS.has(key) && Array.isArray(value)) out[key] = value.map(toOpenApiSchema);
    else if (SCHEMA_MAPS.has(key) && isObject(value))
      out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toOpenApiSchema(v)]));
    else if (key === 'items')
      out[Array.isArray(value) ? 'prefixItems' : 'items'] = Array.isArray(value)
        ? value.map(toOpenApiSchema)
        : toOpenApiSchema(value);
    else out[key] = JSON.parse(JSON.stringify(value)) as unknown;
  }
  if (Array.isArray(out.prefixItems) && out.additionalItems !== undefined) {
    // Draft 7's additionalItems after a tuple is 2020-12's items.
    out.items = out.additionalItems === false ? false : toOpenApiSchema(out.additionalItems);
    delete out.additionalItems;
  }
  if (input.type === 'Date') Object.assign(out, { type: 'string', format: 'date-time' });
  if (input.type === 'Uint8Array') Object.assign(out, { type: 'string', contentEncoding: 'base64' });
  return out;
}

/** `schema` or null: a type array where the schema has a plain type, else a oneOf with null. */
export function orNull(schema: OpenApiSchema): OpenApiSchema {
  if (typeof schema.type === 'string' && !('enum' in schema) && !('const' in schema))
    return { ...schema, type: [schema.type, 'null'] };
  const { description, ...rest } = schema;
  // Any value (a json column) already takes null: `oneOf` would then match twice.
  if (Object.keys(rest).length === 0) return schema;
  return {
    oneOf: [rest, { type: 'null' }],
    ...(description === undefined ? {} : { description }),
  };
}
