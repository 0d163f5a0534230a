/**
 * An OpenAPI 3.0.3 document read as JSON Schema 2020-12, so that one validator (Ajv2020) checks
 * values against 3.0 and 3.1 documents alike. What the 3.0.3 specification says its Schema Object
 * keywords mean: `nullable: true` adds null to the values of `type` (an `enum` lists null itself),
 * `exclusiveMinimum: true` makes `minimum` exclusive (same for the maximum), `example` is an
 * annotation. A 3.1 document is returned as it is.
 */
export function jsonSchemaDocument<T>(document: T): T {
  const openapi = (document as { openapi?: string }).openapi ?? '';
  return openapi.startsWith('3.0') ? (read(document) as T) : document;
}

function read(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(read);
  if (typeof node !== 'object' || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) out[key] = read(value);
  if (out.nullable === true && typeof out.type === 'string') out.type = [out.type, 'null'];
  if (typeof out.nullable === 'boolean') delete out.nullable;
  for (const [exclusive, bound] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    if (out[exclusive] === true && typeof out[bound] === 'number') {
      out[exclusive] = out[bound];
      delete out[bound];
    } else if (typeof out[exclusive] === 'boolean') delete out[exclusive];
  }
  return out;
}
