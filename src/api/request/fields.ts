import { BadRequestError } from '../../core/errors.ts';
import type { Dialect } from '../../db/url.ts';
import { readExpression } from '../resource/column-types.ts';
import type {
  CompiledRelation,
  CompiledResource,
  OutputField,
  RelationTarget,
  Selection,
} from '../resource/compile.ts';

/**
 * Sparse fieldsets: `fields=id,title` and `fields[relation]=id,body`. The
 * statement reads only the columns asked for plus the keys the engine needs itself (the primary
 * key, the keys that join derived relations, the sort columns a cursor is made of, the columns a
 * computed field is made from); the response shows the asked-for fields and the primary key.
 */
export interface FieldSet {
  /** Qualified select list of the columns read. */
  select: Selection;
  /** The same, unqualified (single-table statements). */
  plainSelect: Selection;
  /** What the response shows of each row. */
  output: OutputField[];
  /** Computed fields (set by hooks) the response keeps; the others are removed. */
  computed: ReadonlySet<string>;
}

/** A derive node as this module sees it (query.ts's DeriveNode, without importing it back). */
interface DeriveNode {
  relation: CompiledRelation;
  children: DeriveNode[];
  fields?: FieldSet;
}

export type FieldsInput = Record<string, string | string[] | undefined>;

const RELATION_FIELDS = /^fields\[([^\]]+)\]$/;

/** Whether a query parameter is `fields` or `fields[relation]`. */
export function isFieldsParameter(name: string): boolean {
  return name === 'fields' || RELATION_FIELDS.test(name);
}

function bad(name: string, reason: string): never {
  throw new BadRequestError(`The query parameter "${name}" ${reason}.`, {
    invalidParams: [{ name, reason }],
  });
}

function names(name: string, value: string | string[] | undefined): string[] {
  if (Array.isArray(value)) bad(name, 'must be given once');
  if (!value) bad(name, 'must name at least one field');
  const list = value.split(',');
  if (list.some((item) => item === '')) bad(name, 'has an empty field name');
  return [...new Set(list)];
}

/** The fields a client may name for a level: its visible columns, then its declared computed fields. */
export function selectableFields(target: RelationTarget): string[] {
  const computed = target.resource ? Object.keys(target.resource.config.computedFields ?? {}) : [];
  return [...target.output.map((field) => field.key), ...computed];
}

function targetOf(resource: CompiledResource): RelationTarget {
  return {
    table: resource.table,
    resource,
    select: resource.select,
    plainSelect: resource.plainSelect,
    output: resource.output,
  };
}

/** The key of a level: a resource's primary key, or the target key of a plain table. */
function keyOf(target: RelationTarget, fallback: string): string {
  return target.resource?.primaryKey ?? fallback;
}

/** Built field sets per target (its output list is one object per target) and request shape. */
const built = new WeakMap<readonly OutputField[], Map<string, FieldSet>>();
const MAX_SHAPES = 64;

function build(
  dialect: Dialect,
  target: RelationTarget,
  key: string,
  requested: string[],
  internal: readonly string[],
  parameter: string,
): FieldSet {
  // The same `fields` with the same sort and derive gives the same set: build it once.
  const shape = `${dialect}|${key}|${requested.join(',')}|${internal.join(',')}`;
  let shapes = built.get(target.output);
  const cached = shapes?.get(shape);
  if (cached) return cached;
  const set = buildSet(dialect, target, key, requested, internal, parameter);
  if (!shapes) built.set(target.output, (shapes = new Map()));
  // Field lists come from clients: keep memory bounded.
  if (shapes.size >= MAX_SHAPES) shapes.clear();
  shapes.set(shape, set);
  return set;
}

function buildSet(
  dialect: Dialect,
  target: RelationTarget,
  key: string,
  requested: string[],
  internal: readonly string[],
  parameter: string,
): FieldSet {
  const selectable = selectableFields(target);
  for (const field of requested) {
    if (!selectable.includes(field))
      bad(parameter, `names "${field}", which is not a field here (fields: ${selectable.join(', ')})`);
  }
  const computedConfig = target.resource?.config.computedFields ?? {};
  const computed = new Set(requested.filter((field) => field in computedConfig));
  const shown = new Set([key, ...requested.filter((field) => !computed.has(field))]);
  const read = new Set([...shown, ...internal]);
  for (const field of computed) for (const column of computedConfig[field]!.from ?? []) read.add(column);
  const typeOf = (column: string) =>
    target.resource
      ? target.resource.columnTypes.get(column)
      : target.output.find((field) => field.key === column)?.kind;
  const columns = [...read];
  const expression = (table: string | null, column: string) => {
    const type = typeOf(column);
    return readExpression(dialect, table, column, type === 'plain' || type === 'id' ? undefined : type);
  };
  return {
    select: columns.map((column) => expression(target.table, column)),
    plainSelect: columns.map((column) => expression(null, column)),
    output: target.output.filter((field) => shown.has(field.key)),
    computed,
  };
}

/** Keys a level's loader reads from its own rows to join each derived relation. */
function joinKeys(resource: CompiledResource | null, derive: readonly DeriveNode[]): string[] {
  return derive.map((node) =>
    node.relation.type === 'hasMany' ? resource!.primaryKey : node.relation.foreignKey,
  );
}

/**
 * Parse `fields` and every `fields[path]` of a query. The top level's set is returned; each derived
 * relation named by a `fields[path]` gets its set on its derive node. Null when `fields` is absent.
 */
export function parseFields(
  resource: CompiledResource,
  query: FieldsInput,
  derive: readonly DeriveNode[],
  sortColumns: readonly string[],
  dialect: Dialect,
): FieldSet | null {
  for (const [name, value] of Object.entries(query)) {
    const match = RELATION_FIELDS.exec(name);
    if (!match) continue;
    const path = match[1]!.split('.');
    let nodes = derive;
    let node: DeriveNode | undefined;
    for (const step of path) {
      node = nodes.find((candidate) => candidate.relation.name === step);
      if (!node) bad(name, `names "${match[1]}", which is not a relation this query derives`);
      nodes = node.children;
    }
    const relation = node!.relation;
    const target = relation.target;
    // The loader groups children by their key to the parent (hasMany) or finds parents by theirs.
    const theirKey = relation.type === 'hasMany' ? relation.foreignKey : relation.targetKey;
    node!.fields = build(
      dialect,
      target,
      keyOf(target, relation.targetKey),
      names(name, value),
      [theirKey, ...joinKeys(target.resource, node!.children)],
      name,
    );
  }
  if (query.fields === undefined) return null;
  return build(
    dialect,
    targetOf(resource),
    resource.primaryKey,
    names('fields', query.fields),
    [...sortColumns, ...joinKeys(resource, derive)],
    'fields',
  );
}
