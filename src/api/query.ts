import { BadRequestError } from '../core/errors.ts';
import { parseSort, type CompiledRelation, type CompiledResource, type SortTerm } from './compile.ts';
import type { IdCodec } from './sqids.ts';

/** A requested relation and what to embed inside it. */
export interface DeriveNode {
  relation: CompiledRelation;
  children: DeriveNode[];
}

export interface Filter {
  column: string;
  value: string | number;
}

export interface ListPlan {
  filters: Filter[];
  page: number;
  limit: number;
  sort: SortTerm[];
  /** Already lower-cased and with LIKE wildcards escaped, or null. */
  pattern: string | null;
  derive: DeriveNode[];
}

export type QueryInput = Record<string, string | string[] | undefined>;

const ITEM_PARAMETERS = new Set(['derive']);
const POSITIVE_INTEGER = /^[1-9][0-9]*$/;
/** The escape character of every LIKE the engine writes (one that needs no quoting on any dialect). */
export const LIKE_ESCAPE = '!';

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

function checkKnown(query: QueryInput, allowed: ReadonlySet<string>): void {
  for (const name of Object.keys(query)) {
    if (!allowed.has(name))
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

/** `%`, `_` and the escape character itself match literally. */
export function likePattern(search: string): string {
  const escaped = search.toLowerCase().replace(/[!%_]/g, (c) => LIKE_ESCAPE + c);
  return `%${escaped}%`;
}

/** `comments.author,author` → a tree, every level checked against that level's allowedRelations. */
export function parseDerive(resource: CompiledResource, text: string | undefined): DeriveNode[] {
  if (text === undefined || text === '') return [];
  const roots: DeriveNode[] = [];
  for (const rawPath of text.split(',')) {
    const path = rawPath.trim();
    if (!path) bad('derive', 'has an empty relation name');
    let level: CompiledResource | null = resource;
    let nodes = roots;
    for (const name of path.split('.')) {
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
  return roots;
}

const INTEGER = /^-?[0-9]{1,15}$/;

/** Equality filters on filterable columns; obfuscated columns take their public id. */
function parseFilters(resource: CompiledResource, query: QueryInput, codec: IdCodec): Filter[] {
  const filters: Filter[] = [];
  for (const column of resource.filterable) {
    const text = single(query, column);
    if (text === undefined) continue;
    let value: string | number = text;
    if (resource.obfuscated.has(column)) {
      const id = codec.decode(text);
      if (id === null) bad(column, 'is not a valid id');
      value = id;
    } else if (resource.columnTypes.get(column) === 'integer') {
      if (!INTEGER.test(text)) bad(column, 'must be an integer');
      value = Number(text);
    } else if (resource.columnTypes.get(column) === 'boolean') {
      if (text !== 'true' && text !== 'false') bad(column, 'must be true or false');
      value = text === 'true' ? 1 : 0;
    }
    filters.push({ column, value });
  }
  return filters;
}

/** Parse and check a list query against the resource: the result is safe to turn into SQL. */
export function parseListQuery(resource: CompiledResource, query: QueryInput, codec: IdCodec): ListPlan {
  checkKnown(query, resource.listParameters);
  const filters = parseFilters(resource, query, codec);
  const page = positive(query, 'page', 1);
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
  // Ties broken by the primary key, so that pages never overlap or skip rows.
  if (!sort.some((term) => term.column === resource.primaryKey))
    sort = [...sort, { column: resource.primaryKey, desc: false }];

  const search = single(query, 'search');
  if (search !== undefined && search.length > 200) bad('search', 'is longer than 200 characters');
  const pattern = search && resource.searchable.length > 0 ? likePattern(search) : null;
  if (search && resource.searchable.length === 0)
    bad('search', `is not available: ${resource.name} has no searchable fields`);

  return { filters, page, limit, sort, pattern, derive: parseDerive(resource, single(query, 'derive')) };
}

/** Single reads take only `derive`. */
export function parseItemQuery(resource: CompiledResource, query: QueryInput): DeriveNode[] {
  checkKnown(query, ITEM_PARAMETERS);
  return parseDerive(resource, single(query, 'derive'));
}
