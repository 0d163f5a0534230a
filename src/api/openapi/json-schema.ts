/**
 * JSON Schema (what TypeBox produces) → OpenAPI 3.0 Schema Object. OpenAPI 3.0 speaks a dialect of
 * draft 4/5: no `const`, no `type` arrays or `type: "null"` (it has `nullable`), boolean
 * `exclusiveMinimum`, a single `example`, no tuples. Keywords it does not know are dropped so the
 * document stays valid; TypeBox's symbol keys vanish because only string keys are copied.
 */
export type OpenApiSchema = Record<string, unknown>;

/** Keywords that mean the same in both dialects and are copied as they are. */
const SAME = new Set([
  'title',
  'description',
  'default',
  'format',
  'pattern',
  'multipleOf',
  'minimum',
  'maximum',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
  'required',
  'enum',
  'readOnly',
  'writeOnly',
  'deprecated',
  'example',
  'nullable',
  '$ref',
]);

const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object']);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isNullSchema(schema: unknown): boolean {
  return isObject(schema) && (schema.type === 'null' || (schema.const === null && !('type' in schema)));
}

/** Convert one schema; `definitions` refs (`#/$defs/x`) are not followed: TypeBox inlines them. */
export function toOpenApiSchema(input: unknown): OpenApiSchema {
  if (input === true || input === undefined) return {};
  if (input === false) return { not: {} };
  if (!isObject(input)) return {};
  const out: OpenApiSchema = {};

  for (const key of Object.keys(input)) {
    if (SAME.has(key) && key !== 'required' && key !== 'enum') out[key] = structuredCloneJson(input[key]);
  }
  if (Array.isArray(input.required) && input.required.length > 0) out.required = [...input.required];
  if (Array.isArray(input.enum)) {
    if (input.enum.includes(null)) out.nullable = true;
    const values = input.enum.filter((v) => v !== null);
    if (values.length > 0) out.enum = values;
  }
  if ('const' in input) {
    if (input.const === null) out.nullable = true;
    else out.enum = [input.const];
  }
  if (Array.isArray(input.examples) && input.examples.length > 0 && !('example' in out)) {
    out.example = structuredCloneJson(input.examples[0]);
  }

  // type: a single name, a list (with "null" meaning nullable), or "null" alone.
  const types = (
    Array.isArray(input.type) ? input.type : input.type === undefined ? [] : [input.type]
  ).filter((t): t is string => typeof t === 'string');
  if (types.includes('null')) out.nullable = true;
  const real = types.filter((t) => TYPES.has(t));
  if (real.length === 1) out.type = real[0];
  else if (real.length > 1) {
    // OpenAPI 3.0 has one type per schema: several become alternatives.
    return { ...out, anyOf: real.map((type) => ({ type })) };
  }
  if (types.length === 1 && types[0] === 'null') {
    // A schema that is only null: OpenAPI 3.0 cannot say it; an enum of nothing but null is closest.
    return { nullable: true, enum: [null] };
  }
  // TypeBox non-JSON types (Type.Date, Type.Uint8Array) as they travel in JSON.
  if (input.type === 'Date') Object.assign(out, { type: 'string', format: 'date-time' });
  if (input.type === 'Uint8Array') Object.assign(out, { type: 'string', format: 'byte' });

  // Draft 6+ numeric exclusive bounds → draft 4 boolean form.
  if (typeof input.exclusiveMinimum === 'number') {
    out.minimum = input.exclusiveMinimum;
    out.exclusiveMinimum = true;
  } else if (typeof input.exclusiveMinimum === 'boolean') out.exclusiveMinimum = input.exclusiveMinimum;
  if (typeof input.exclusiveMaximum === 'number') {
    out.maximum = input.exclusiveMaximum;
    out.exclusiveMaximum = true;
  } else if (typeof input.exclusiveMaximum === 'boolean') out.exclusiveMaximum = input.exclusiveMaximum;

  if (isObject(input.properties)) {
    const properties: Record<string, OpenApiSchema> = {};
    for (const [name, schema] of Object.entries(input.properties)) properties[name] = toOpenApiSchema(schema);
    out.properties = properties;
  }
  if (input.additionalProperties !== undefined) {
    out.additionalProperties =
      typeof input.additionalProperties === 'boolean'
        ? input.additionalProperties
        : toOpenApiSchema(input.additionalProperties);
  } else if (isObject(input.patternProperties)) {
    // No patternProperties in 3.0: the values' schemas (any of them) describe extra properties.
    const schemas = Object.values(input.patternProperties).map(toOpenApiSchema);
    out.additionalProperties = schemas.length === 1 ? schemas[0] : { anyOf: schemas };
  }

  if (Array.isArray(input.items) || Array.isArray(input.prefixItems)) {
    // A tuple: 3.0 has no positional items, so any of the element schemas at each position.
    const elements = ((input.prefixItems ?? input.items) as unknown[]).map(toOpenApiSchema);
    out.items = elements.length === 1 ? elements[0] : elements.length === 0 ? {} : { anyOf: elements };
    if (out.type === undefined) out.type = 'array';
  } else if (input.items !== undefined) {
    out.items = toOpenApiSchema(input.items);
  }
  if (out.type === 'array' && out.items === undefined) out.items = {};

  for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
    const list = input[key];
    if (!Array.isArray(list)) continue;
    const nonNull = list.filter((s) => !isNullSchema(s));
    if (nonNull.length < list.length) out.nullable = true;
    const converted = nonNull.map(toOpenApiSchema);
    if (
      converted.length === 1 &&
      key !== 'allOf' &&
      Object.keys(out).every(
        (k) => k === 'nullable' || k === 'description' || k === 'title' || k === 'default',
      )
    ) {
      // `T | null` is the common case: T itself, nullable.
      Object.assign(out, converted[0], out.nullable ? { nullable: true } : {});
    } else if (converted.length > 0) out[key] = converted;
  }
  if (input.not !== undefined) out.not = toOpenApiSchema(input.not);
  // `nullable` is only meaningful next to a type in 3.0.
  if (out.nullable && out.type === undefined && !out.anyOf && !out.oneOf && !out.allOf && !out.enum)
    delete out.nullable;
  return out;
}

function structuredCloneJson<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}
