import { BadRequestError, ValidationError } from '../../core/errors.ts';
import { emptyRecord, ForbiddenKeyError, isForbiddenKey } from '../../core/request-keys.ts';
import type { Dialect } from '../../db/url.ts';
import { columnValueProblem, integerOutOfRange, toStorage } from '../resource/column-types.ts';
import type { CompiledResource } from '../resource/compile.ts';
import type { IdCodecs } from '../resource/sqids.ts';
import type { ColumnType } from '../resource/types.ts';

/**
 * List filters: `field=value`, `filter[field][op]=value`, groups
 * `filter[or][0][field][op]=…` / `filter[and][…]` nested to depth 3, and the same tree as JSON in
 * one `filter` parameter. The result is a checked tree of conditions on filterable columns, values
 * already in the form the driver binds.
 */

export const FILTER_OPERATORS = [
  'eq',
  'ne',
  'gt',
  'gte',
  'lt',
  'lte',
  'in',
  'nin',
  'contains',
  'starts',
  'null',
] as const;
export type FilterOperator = (typeof FILTER_OPERATORS)[number];
/** Deepest nesting of `and` / `or` groups. */
export const MAX_FILTER_DEPTH = 3;
/** Most conditions in one query, and most values in one `in` / `nin` list. */
export const MAX_FILTER_CONDITIONS = 30;
export const MAX_FILTER_LIST = 100;

export type FilterNode =
  | { kind: 'condition'; column: string; op: FilterOperator; value: unknown }
  | { kind: 'and' | 'or'; children: FilterNode[] };

const ORDERED: ReadonlySet<ColumnType> = new Set([
  'integer',
  'bigint',
  'number',
  'decimal',
  'date',
  'datetime',
  'string',
  'text',
]);
const TEXT: ReadonlySet<ColumnType> = new Set(['string', 'text']);

/** The operators a filterable column takes: obfuscated ids compare by equality only (their order is secret). */
export function operatorsFor(resource: CompiledResource, column: string): FilterOperator[] {
  const type = resource.columnTypes.get(column)!;
  const nullable = resource.config.columns[column]!.nullable === true;
  return FILTER_OPERATORS.filter((op) => {
    if (op === 'null') return nullable;
    if (op === 'contains' || op === 'starts') return TEXT.has(type) && !resource.obfuscated.has(column);
    if (op === 'gt' || op === 'gte' || op === 'lt' || op === 'lte')
      return ORDERED.has(type) && !resource.obfuscated.has(column);
    return true;
  });
}

function bad(name: string, reason: string): never {
  throw new BadRequestError(`The query parameter "${name}" ${reason}.`, {
    invalidParams: [{ name, reason }],
  });
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `filter[or][0][status][eq]` → ['or', '0', 'status', 'eq'], or null when it is not that shape. */
function bracketPath(key: string): string[] | null {
  const match = /^filter((?:\[[^[\]]*\])+)$/.exec(key);
  if (!match) return null;
  return [...match[1]!.matchAll(/\[([^[\]]*)\]/g)].map((m) => m[1]!);
}

/**
 * The bracket parameters of a query as one nested object (arrays where the segment is an index).
 * Every node has no prototype and a reserved segment is refused first, so no key of the query can
 * reach a shared prototype.
 */
function bracketTree(entries: [string, string][]): Record<string, unknown> {
  const root = emptyRecord();
  for (const [key, value] of entries) {
    const path = bracketPath(key)!;
    if (path.some(isForbiddenKey)) throw new ForbiddenKeyError(key);
    let node = root;
    for (let i = 0; i < path.length - 1; i++) {
      const segment = path[i]!;
      const next = Object.hasOwn(node, segment) ? node[segment] : undefined;
      if (next === undefined) node = node[segment] = emptyRecord();
      else if (isPlainObject(next)) node = next;
      else bad(key, 'conflicts with another filter parameter');
    }
    const last = path[path.length - 1]!;
    if (Object.hasOwn(node, last)) bad(key, 'is given twice');
    node[last] = value;
  }
  return indexedToArrays(root, 'filter') as Record<string, unknown>;
}

/** `{or: {"0": …, "1": …}}` → `{or: [… , …]}`: group members come as numbered keys. */
function indexedToArrays(node: unknown, name: string): unknown {
  if (!isPlainObject(node)) return node;
  const out = emptyRecord();
  for (const [key, value] of Object.entries(node)) {
    if ((key === 'and' || key === 'or') && isPlainObject(value)) {
      const indexes = Object.keys(value);
      if (!indexes.every((index) => /^(0|[1-9][0-9]{0,2})$/.test(index)))
        bad(`${name}[${key}]`, 'must be followed by item numbers: [0], [1], …');
      out[key] = indexes
        .sort((a, b) => Number(a) - Number(b))
        .map((index) => indexedToArrays(value[index], `${name}[${key}][${index}]`));
    } else out[key] = indexedToArrays(value, `${name}[${key}]`);
  }
  return out;
}

class FilterParser {
  private conditions = 0;

  constructor(
    private readonly resource: CompiledResource,
    private readonly codecs: IdCodecs,
    private readonly dialect: Dialect,
  ) {}

  /** One group object: field keys and `and` / `or` arrays, all of which must hold. */
  group(node: unknown, name: string, depth: number): FilterNode {
    if (!isPlainObject(node) || Object.keys(node).length === 0)
      bad(name, 'must be an object of fields and groups');
    const children: FilterNode[] = [];
    for (const [key, value] of Object.entries(node)) {
      const path = `${name}[${key}]`;
      // The JSON form: JSON.parse keeps `__proto__` as an own key; it is refused like the bracket form.
      if (isForbiddenKey(key)) throw new ForbiddenKeyError(name === 'filter' ? 'filter' : path);
      if (key === 'and' || key === 'or') {
        if (depth >= MAX_FILTER_DEPTH) bad(path, `nests groups deeper than ${MAX_FILTER_DEPTH} levels`);
        if (!Array.isArray(value) || value.length === 0) bad(path, 'must be a non-empty list of filters');
        children.push({
          kind: key,
          children: value.map((member, index) => this.group(member, `${path}[${index}]`, depth + 1)),
        });
      } else children.push(...this.field(key, value, path));
    }
    return children.length === 1 ? children[0]! : { kind: 'and', children };
  }

  /** `{op: value, …}` on one field: every condition must hold. */
  private field(column: string, node: unknown, name: string): FilterNode[] {
    if (!this.resource.filterable.has(column)) {
      const known = [...this.resource.filterable].join(', ') || 'none';
      bad(name, `names "${column}", which is not a filterable field (filterable: ${known})`);
    }
    if (!isPlainObject(node) || Object.keys(node).length === 0)
      bad(name, 'must name an operator, such as [eq]');
    return Object.entries(node).map(([op, value]) => {
      if (isForbiddenKey(op)) throw new ForbiddenKeyError(`${name}[${op}]`);
      return this.condition(column, op, value, `${name}[${op}]`);
    });
  }

  condition(column: string, op: string, raw: unknown, name: string): FilterNode {
    const allowed = operatorsFor(this.resource, column);
    if (!allowed.includes(op as FilterOperator))
      bad(name, `has the operator "${op}", which ${column} does not take (operators: ${allowed.join(', ')})`);
    if (++this.conditions > MAX_FILTER_CONDITIONS)
      bad(name, `is past the limit of ${MAX_FILTER_CONDITIONS} conditions`);
    const operator = op as FilterOperator;
    if (operator === 'null') {
      const text = String(raw);
      if (text !== 'true' && text !== 'false') bad(name, 'must be true or false');
      return { kind: 'condition', column, op: operator, value: text === 'true' };
    }
    if (operator === 'contains' || operator === 'starts') {
      if (typeof raw !== 'string' || raw === '') bad(name, 'must be a non-empty string');
      if (raw.length > 200) bad(name, 'is longer than 200 characters');
      return { kind: 'condition', column, op: operator, value: raw };
    }
    if (operator === 'in' || operator === 'nin') {
      const items = Array.isArray(raw) ? raw : typeof raw === 'string' ? raw.split(',') : [raw];
      if (items.length === 0 || items.length > MAX_FILTER_LIST)
        bad(name, `must list 1 to ${MAX_FILTER_LIST} values`);
      return {
        kind: 'condition',
        column,
        op: operator,
        value: items.map((item) => this.value(column, item, name)),
      };
    }
    return { kind: 'condition', column, op: operator, value: this.value(column, raw, name) };
  }

  /** A query value (text, or a JSON scalar in the JSON form) as the column stores it. */
  private value(column: string, raw: unknown, name: string): unknown {
    if (typeof raw !== 'string' && typeof raw !== 'number' && typeof raw !== 'boolean')
      bad(name, 'must be a single value');
    const text = String(raw);
    if (this.resource.obfuscated.has(column)) {
      const id = this.codecs.of(this.resource.idSpaces.get(column)!).decode(text);
      if (id === null) bad(name, 'is not a valid id');
      return id;
    }
    const config = this.resource.config.columns[column]!;
    let value: unknown = text;
    if (config.type === 'integer' || config.type === 'number')
      value = /^-?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?$/.test(text) ? Number(text) : NaN;
    else if (config.type === 'boolean') value = text === 'true' ? true : text === 'false' ? false : text;
    const problem = columnValueProblem(config, value);
    // A well-formed integer the column cannot hold is an unknown id: 422, as in a payload.
    if (problem && integerOutOfRange(config.type, text))
      throw new ValidationError({ [name]: problem }, `The query parameter "${name}" ${problem}.`);
    if (problem) bad(name, problem);
    return toStorage(config.type, value, this.dialect);
  }
}

export type FilterQuery = Record<string, string | string[] | undefined>;

/** Whether a query parameter belongs to filtering (so the list parser does not call it unknown). */
export function isFilterParameter(name: string): boolean {
  return name === 'filter' || bracketPath(name) !== null;
}

/** Every filter of a list query as one tree (their conjunction), or null. */
export function parseFilters(
  resource: CompiledResource,
  query: FilterQuery,
  codecs: IdCodecs,
  dialect: Dialect,
): FilterNode | null {
  const parser = new FilterParser(resource, codecs, dialect);
  const children: FilterNode[] = [];
  for (const column of resource.filterable) {
    const value = query[column];
    if (value === undefined) continue;
    if (Array.isArray(value)) bad(column, 'must be given once');
    children.push(parser.condition(column, 'eq', value, column));
  }
  const brackets: [string, string][] = [];
  for (const [key, value] of Object.entries(query)) {
    if (key === 'filter' || bracketPath(key) === null || value === undefined) continue;
    if (Array.isArray(value)) bad(key, 'must be given once');
    brackets.push([key, value]);
  }
  if (brackets.length > 0) children.push(parser.group(bracketTree(brackets), 'filter', 0));
  const json = query.filter;
  if (json !== undefined) {
    if (Array.isArray(json)) bad('filter', 'must be given once');
    let tree: unknown;
    try {
      tree = JSON.parse(json);
    } catch {
      bad('filter', 'is not valid JSON');
    }
    // `{}` asks for nothing (the documentation page sends it when the field is left as it is).
    if (!isPlainObject(tree) || Object.keys(tree).length > 0) children.push(parser.group(tree, 'filter', 0));
  }
  if (children.length === 0) return null;
  return children.length === 1 ? children[0]! : { kind: 'and', children };
}
