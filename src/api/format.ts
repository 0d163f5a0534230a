import type { ApiRecord } from './types.ts';
import type { CompiledResource, OutputField } from './compile.ts';
import type { DeriveNode } from './query.ts';
import type { IdCodec } from './sqids.ts';

function convert(field: OutputField, value: unknown, codec: IdCodec): unknown {
  if (value === null || value === undefined) return null;
  switch (field.kind) {
    case 'id':
      return codec.encode(value as number);
    case 'boolean':
      return value === true || value === 1 || value === '1';
    case 'number':
      // pg returns bigint and numeric as strings, MySQL decimals too.
      return typeof value === 'number' ? value : Number(value);
    default:
      return value;
  }
}

function formatFields(output: readonly OutputField[], row: ApiRecord, codec: IdCodec): ApiRecord {
  const record: ApiRecord = {};
  for (const field of output) record[field.key] = convert(field, row[field.key], codec);
  return record;
}

/**
 * A stored row (after the hooks) as the client sees it: visible columns converted, obfuscated ids
 * encoded, the derived relations formatted by their own target, and any field a hook added kept.
 */
export function formatRecord(
  resource: CompiledResource,
  row: ApiRecord,
  derive: readonly DeriveNode[],
  codec: IdCodec,
): ApiRecord {
  const record = formatFields(resource.output, row, codec);
  for (const node of derive) {
    const value = row[node.relation.name];
    const target = node.relation.target;
    const one = (child: ApiRecord) =>
      target.resource
        ? formatRecord(target.resource, child, node.children, codec)
        : formatFields(target.output, child, codec);
    if (Array.isArray(value)) record[node.relation.name] = (value as ApiRecord[]).map(one);
    else record[node.relation.name] = value ? one(value as ApiRecord) : null;
  }
  for (const key in row) {
    if (!(key in record) && !resource.columns.has(key) && !resource.relations.has(key))
      record[key] = row[key];
  }
  return record;
}
