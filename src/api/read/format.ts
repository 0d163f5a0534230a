import { FROM_STORAGE } from '../resource/column-types.ts';
import type { ApiRecord, ColumnType } from '../resource/types.ts';
import type { CompiledResource, OutputField } from '../resource/compile.ts';
import type { DeriveNode } from '../request/query.ts';
import type { IdCodecs } from '../resource/sqids.ts';
import type { FieldSet } from '../request/fields.ts';

type Converter = (value: unknown, codecs: IdCodecs, space: string) => unknown;

const CONVERTERS = {
  id: (value, codecs, space) =>
    value === null || value === undefined ? null : codecs.of(space).encode(value as number),
  plain: (value) => (value === undefined ? null : value),
  ...(Object.fromEntries(
    Object.entries(FROM_STORAGE).map(([type, convert]) => [
      type,
      (value: unknown) => (value === null || value === undefined ? null : convert(value)),
    ]),
  ) as unknown as Record<ColumnType, Converter>),
} satisfies Record<OutputField['kind'], Converter>;

/** The visible columns of one row, converted: built once per field list, not per row. */
type FieldFormatter = (row: ApiRecord, codecs: IdCodecs) => ApiRecord;

const fieldFormatters = new WeakMap<readonly OutputField[], FieldFormatter>();

function fieldFormatter(output: readonly OutputField[]): FieldFormatter {
  let format = fieldFormatters.get(output);
  if (!format) {
    const keys = output.map((field) => field.key);
    const converters = output.map((field) => CONVERTERS[field.kind]);
    const spaces = output.map((field) => field.space ?? field.key);
    const count = keys.length;
    format = (row, codecs) => {
      const record: ApiRecord = {};
      for (let i = 0; i < count; i++) {
        const key = keys[i]!;
        record[key] = converters[i]!(row[key], codecs, spaces[i]!);
      }
      return record;
    };
    fieldFormatters.set(output, format);
  }
  return format;
}

/** Keys the engine itself sends or withholds; anything else on a row was added by a hook. */
const engineKeys = new WeakMap<CompiledResource, ReadonlySet<string>>();

function knownKeys(resource: CompiledResource): ReadonlySet<string> {
  let keys = engineKeys.get(resource);
  if (!keys) {
    keys = new Set([...resource.columns, ...resource.relations.keys()]);
    engineKeys.set(resource, keys);
  }
  return keys;
}

/**
 * A stored row (after the hooks) as the client sees it: visible columns converted, obfuscated ids
 * encoded, the derived relations formatted by their own target, and any field a hook added kept.
 */
export function formatRecord(
  resource: CompiledResource,
  row: ApiRecord,
  derive: readonly DeriveNode[],
  codecs: IdCodecs,
  fields: FieldSet | null = null,
): ApiRecord {
  const record = fieldFormatter(fields?.output ?? resource.output)(row, codecs);
  for (const node of derive) {
    const value = row[node.relation.name];
    const target = node.relation.target;
    const format = fieldFormatter(node.fields?.output ?? target.output);
    const one = (child: ApiRecord) =>
      target.resource
        ? formatRecord(target.resource, child, node.children, codecs, node.fields)
        : format(child, codecs);
    if (Array.isArray(value)) record[node.relation.name] = (value as ApiRecord[]).map(one);
    else record[node.relation.name] = value ? one(value as ApiRecord) : null;
  }
  const known = knownKeys(resource);
  const computed = resource.config.computedFields;
  for (const key of Object.keys(row)) {
    if (known.has(key) || Object.hasOwn(record, key)) continue;
    // A sparse fieldset keeps only the computed fields it names (hook-added keys it cannot know stay).
    if (fields && computed && Object.hasOwn(computed, key) && !fields.computed.has(key)) continue;
    record[key] = row[key];
  }
  return record;
}
