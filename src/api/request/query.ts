import { BadRequestError } from '../../core/errors.ts';
import {
  parseSort,
  type CompiledRelation,
  type CompiledResource,
  type SortTerm,
} from '../resource/compile.ts';
import type { Dialect } from '../../db/url.ts';
import { isFilterParameter, parseFilters, type FilterNode } from './filters.ts';
import { likePattern } from '../read/search-sql.ts';
import type { IdCodecs } from '../resource/sqids.ts';
import { checkDeriveDepth, mustCountEmbedded } from './derive-limits.ts';
import type { CursorPosition, CursorQuery } from './cursor.ts';
import { isFieldsParameter, parseFields, type FieldSet } from './fields.ts';
import { parseCountMode, type CountMode } from '../read/count.ts';

/** A requested relation and what to embed inside it. */
export interface DeriveNode {
  relation: CompiledRelation;
  children: DeriveNode[];
  /** `fields[relation]`: the columns read and shown of this relation (all when absent). */
  fields?: FieldSet;
}

export interface ListPlan {
  /** Every filter of the query as one checked tree, or null. */
  filter: FilterNode | null;
  page: number;
  limit: number;
  sort: SortTerm[];
  /** Already lower-cased and with LIKE wildcards escaped, or null. */
  pattern: string | null;
  derive: DeriveNode[];
  count: CountMode;
  /** `cursor` as given, or null. */
  cursor: string | null;
  /** The query a cursor is bound to (the given one and the next page's). */
  cursorQuery: CursorQuery;
  /** Where the given cursor resumes: set by checkListPlan, before any statement runs. */
  position: CursorPosition | null;
  /** False when the plan alone keeps the embedded rows within the budget (no count once read). */
  countEmbedded: boolean;
  /** `fields`: what the top level reads and shows, or null for every visible column. */
  fields: FieldSet | null;
  /** Every `fields` parameter in one spelling, for the cursor's binding. */
  fieldsKey: string | null;
}

export type QueryInput = Record<string, string | string[] | undefined>;

const ITEM_PARAMETERS = new Set(['derive', 'fields']);
const POSITIVE_INTEGER = /^[1-9][0-9]*$/;

function bad(name: string, reason: string): never {
  throw new BadRequestError(`The query parameter "${name}" ${reason}.`, {
    invalidParams: [{ name, reason }],
  });
}

function single(query: QueryInput, name: string): string | undefined {
  const value = query[name];
  if (Array.isArray(value)) bad(name, 'must be given once');
  return value;
}

function checkKnown(query: QueryInput, allowed: ReadonlySet<string>, filters = false): void {
  for (const name of Object.keys(query)) {
    if (!allowed.has(name) && !(filters && isFilterParameter(name)) && !isFieldsParameter(name))
      bad(name, `is not a parameter of this operation (parameters: ${[...allowed].join(', ')})`);
  }
}

function positive(query: QueryInput, name: string, fallback: number): number {
  const text = single(query, name);
  if (text === undefined) return fallback;
  if (!POSITIVE_INTEGER.test(text)) bad(name, 'must be a positive integer');
  // Any integer is valid; past 2^53 a number is no longer exact (a huge limit is lowered anyway).
  return Math.min(Number(text), Number.MAX_SAFE_INTEGER);
}

/** `comments.author,author` → a tree, every level checked against that level's allowedRelations. */
export function parseDerive(resource: CompiledResource, text: string | undefined): DeriveNode[] {
  if (text === undefined || text === '') return [];
  const roots: DeriveNode[] = [];
  for (const path of text.split(',')) {
    if (!path) bad('derive', 'has an empty relation name');
    const names = path.split('.');
    let level: CompiledResource | null = resource;
    let nodes = roots;
    for (const name of names) {
      if (!level) bad('derive', `cannot go deeper than "${path.slice(0, path.lastIndexOf(name) - 1)}"`);
      if (!level.allowed.includes(name)) {
        const allowed = level.allowed.length ? level.allowed.join(', ') : 'none';
        bad('derive', `names "${name}", which is not a relation of ${level.name} (allowed: ${allowed})`);
      }
      let node: DeriveNode | undefined = nodes.find((candidate) => candidate.relation.name === name);
      if (!node) {
        node = { relation: level.relations.get(name)!, children: [] };
        nodes.push(node);
      }
      nodes = node.children;
      level = node.relation.target.resource;
    }
  }
  checkDeriveDepth(resource, roots);
  return roots;
}

/** Parse and check a list query against the resource: the result is safe to turn into SQL. */
export function parseListQuery(
  resource: CompiledResource,
  query: QueryInput,
  codecs: IdCodecs,
  dialect: Dialect,
): ListPlan {
  checkKnown(query, resource.listParameters, resource.filterable.size > 0);
  const filter = parseFilters(resource, query, codecs, dialect);
  const page = positive(query, 'page', 1);
  const cursor = single(query, 'cursor') ?? null;
  if (cursor !== null && query.page !== undefined) bad('cursor', 'cannot be combined with page');
  if (cursor === '') bad('cursor', 'is empty');
  // A limit above maxLimit is lowered (and reported in pagination.limit), not refused.
  const limit = Math.min(positive(query, 'limit', resource.defaultLimit), resource.maxLimit);
  // The offset must stay an exact integer for every driver.
  if ((page - 1) * limit > Number.MAX_SAFE_INTEGER) bad('page', 'is too large');

  let sort = resource.defaultSort;
  const sortText = single(query, 'sort');
  if (sortText !== undefined) {
    const parsed = parseSort(sortText);
    if (typeof parsed === 'string') bad('sort', parsed);
    for (const term of parsed) {
      if (!resource.sortable.has(term.column)) {
        bad(
          'sort',
          `names "${term.column}", which is not sortable (sortable: ${[...resource.sortable].join(', ')})`,
        );
      }
    }
    sort = parsed;
  }
  // Ties broken by the primary key, so that pages never overlap or skip rows; in the direction of
  // the last term, so that one index on (column, key) serves `-column` by reading it backwards
  // (MariaDB sorts every matching row for a mixed `column DESC, key ASC`).
  if (!sort.some((term) => term.column === resource.primaryKey))
    sort = [...sort, { column: resource.primaryKey, desc: sort.at(-1)?.desc ?? false }];

  const search = single(query, 'search');
  if (search !== undefined && search.length > 200) bad('search', 'is longer than 200 characters');
  const pattern = search && resource.searchable.length > 0 ? likePattern(search) : null;
  if (search && resource.searchable.length === 0)
    bad('search', `is not available: ${resource.name} has no searchable fields`);

  const derive = parseDerive(resource, single(query, 'derive'));
  const fields = parseFields(
    resource,
    query,
    derive,
    sort.map((term) => term.column),
    dialect,
  );
  const key = fieldsKey(query);
  return {
    filter,
    page,
    limit,
    sort,
    pattern,
    derive,
    count: parseCountMode(query.count),
    cursor,
    cursorQuery: { sort, filter, pattern, fields: key },
    position: null,
    countEmbedded: mustCountEmbedded(derive, limit),
    fields,
    fieldsKey: key,
  };
}

/** Every `fields` parameter, sorted by name, as one string (null when there is none). */
function fieldsKey(query: QueryInput): string | null {
  const entries = Object.entries(query)
    .filter(([name]) => isFieldsParameter(name))
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return entries.length === 0 ? null : JSON.stringify(entries);
}

export interface ItemPlan {
  derive: DeriveNode[];
  fields: FieldSet | null;
}

/** Single reads take `derive` and `fields`. */
export function parseItemQuery(resource: CompiledResource, query: QueryInput, dialect: Dialect): ItemPlan {
  checkKnown(query, ITEM_PARAMETERS);
  const derive = parseDerive(resource, single(query, 'derive'));
  return { derive, fields: parseFields(resource, query, derive, [], dialect) };
}
