import { createHmac } from 'node:crypto';
import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import { BadRequestError } from '../../core/errors.ts';
import { safeEqual, type SecretBox } from '../../core/crypto.ts';
import type { Dialect } from '../../db/url.ts';
import { DECIMAL_DEFAULTS, FROM_STORAGE, toStorage } from '../resource/column-types.ts';
import type { CompiledResource, SortTerm } from '../resource/compile.ts';
import type { FilterNode } from './filters.ts';
import type { ApiRecord } from '../resource/types.ts';

/**
 * Keyset cursors. A cursor holds the sort values of the last row of a page
 * and the number of the page it opens, encrypted (the values may be raw obfuscated ids) and signed
 * with an HMAC over the query it belongs to: sort, filters, search and fields. Another query, or
 * any changed character, gives another signature → 400.
 */
export interface CursorPosition {
  /** The last row's value of each sort term, as JSON values. */
  values: unknown[];
  /** The page number the cursor opens. */
  page: number;
}

export interface CursorQuery {
  sort: readonly SortTerm[];
  filter: FilterNode | null;
  pattern: string | null;
  fields: string | null;
}

const PURPOSE = 'api-cursor';

function invalid(): never {
  const reason = 'does not belong to this query (sort, filters, search and fields) or was altered';
  throw new BadRequestError(`The query parameter "cursor" ${reason}.`, {
    invalidParams: [{ name: 'cursor', reason }],
  });
}

const bigintAsText = (_: string, value: unknown) => (typeof value === 'bigint' ? `${value}n` : value);

/** The query a cursor is bound to, in one spelling. */
function queryKey(resource: CompiledResource, query: CursorQuery): string {
  const parts = [resource.name, query.sort, query.filter, query.pattern, query.fields];
  try {
    // Without a replacer JSON.stringify is several times faster; it throws on a bigint (a filter value).
    return JSON.stringify(parts);
  } catch {
    return JSON.stringify(parts, bigintAsText);
  }
}

function signature(secrets: SecretBox, key: string, sealed: string): string {
  return createHmac('sha256', secrets.key(`hmac:${PURPOSE}`))
    .update(`${key}\n${sealed}`)
    .digest('base64url');
}

/** A JSON value of a sort column, from the row as read (json columns keep their stored text). */
function jsonValue(resource: CompiledResource, column: string, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  const type = resource.columnTypes.get(column)!;
  return type === 'json' ? value : FROM_STORAGE[type](value);
}

export function encodeCursor(
  secrets: SecretBox,
  resource: CompiledResource,
  query: CursorQuery,
  row: ApiRecord,
  page: number,
): string {
  const position: CursorPosition = {
    values: query.sort.map((term) => jsonValue(resource, term.column, row[term.column])),
    page,
  };
  const sealed = secrets.encrypt(PURPOSE, JSON.stringify(position));
  return `${sealed}.${signature(secrets, queryKey(resource, query), sealed)}`;
}

export function decodeCursor(
  secrets: SecretBox,
  resource: CompiledResource,
  query: CursorQuery,
  text: string,
): CursorPosition {
  const cut = text.lastIndexOf('.');
  if (cut < 0 || text.length > 4096) invalid();
  const sealed = text.slice(0, cut);
  if (!safeEqual(text.slice(cut + 1), signature(secrets, queryKey(resource, query), sealed))) invalid();
  let position: CursorPosition;
  try {
    position = JSON.parse(secrets.decrypt(PURPOSE, sealed)) as CursorPosition;
  } catch {
    invalid();
  }
  if (!Array.isArray(position.values) || position.values.length !== query.sort.length) invalid();
  if (!Number.isSafeInteger(position.page) || position.page < 2) invalid();
  return position;
}

/** A cursor value bound as the column's stored form (MySQL compares exact numbers only when cast). */
function bound(resource: CompiledResource, column: string, value: unknown, dialect: Dialect) {
  const type = resource.columnTypes.get(column)!;
  const stored = type === 'json' ? value : toStorage(type, value, dialect);
  if (dialect === 'mysql' && type === 'bigint') return sql`cast(${stored} as signed)`;
  if (dialect === 'mysql' && type === 'decimal') {
    const config = { ...DECIMAL_DEFAULTS, ...resource.config.columns[column] };
    return sql`cast(${stored} as decimal(${sql.raw(String(config.precision))}, ${sql.raw(String(config.scale))}))`;
  }
  return sql`${stored}`;
}

/**
 * Rows after the cursor in the sort order: `(a > x) or (a = x and b > y) or …`. Nulls sort first
 * ascending on SQLite and MySQL and last on PostgreSQL; a nullable column's branches follow that.
 */
export function afterCursor(
  eb: ExpressionBuilder<any, any>, // eslint-disable-line @typescript-eslint/no-explicit-any -- application tables
  resource: CompiledResource,
  sort: readonly SortTerm[],
  values: readonly unknown[],
  dialect: Dialect,
): Expression<SqlBool> {
  const nullsHigh = dialect === 'postgres';
  const equal: Expression<SqlBool>[] = [];
  const branches: Expression<SqlBool>[] = [];
  sort.forEach((term, index) => {
    const column = sql.ref(`${resource.table}.${term.column}`);
    const value = values[index];
    const nullable = resource.config.columns[term.column]?.nullable === true;
    const nullsFirst = term.desc === nullsHigh;
    let after: Expression<SqlBool>;
    let same: Expression<SqlBool>;
    if (value === null) {
      same = sql<SqlBool>`${column} is null`;
      after = nullsFirst ? sql<SqlBool>`${column} is not null` : sql<SqlBool>`1 = 0`;
    } else {
      const v = bound(resource, term.column, value, dialect);
      same = sql<SqlBool>`${column} = ${v}`;
      const beyond = term.desc ? sql<SqlBool>`${column} < ${v}` : sql<SqlBool>`${column} > ${v}`;
      after = nullable && !nullsFirst ? eb.or([beyond, sql<SqlBool>`${column} is null`]) : beyond;
    }
    branches.push(equal.length === 0 ? after : eb.and([...equal, after]));
    equal.push(same);
  });
  // The same rows with a plain range on the first column (`a >= x AND (…)`): an index on it is then
  // entered at the cursor instead of scanned from the start (only where nulls cannot follow).
  const [first] = sort;
  const start = values[0];
  if (first && start !== null && resource.config.columns[first.column]?.nullable !== true) {
    const column = sql.ref(`${resource.table}.${first.column}`);
    const v = bound(resource, first.column, start, dialect);
    const range = first.desc ? sql<SqlBool>`${column} <= ${v}` : sql<SqlBool>`${column} >= ${v}`;
    return eb.and([range, eb.or(branches)]);
  }
  return eb.or(branches);
}
