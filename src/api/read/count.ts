import { createQueryId, sql, type CompiledQuery } from 'kysely';
import { BadRequestError } from '../../core/errors.ts';
import type { Dialect } from '../../db/url.ts';
import type { AnyDb } from '../request/context.ts';
import type { ResourceQuery } from '../resource/types.ts';

/**
 * Count modes of a list read: `exact` (default) counts the matching rows,
 * `none` counts nothing (`hasMore` comes from reading one row past the page), `estimated` takes
 * the PostgreSQL planner's estimate of the filtered query (EXPLAIN, as PostgREST does) and counts
 * exactly on the other dialects.
 */
export type CountMode = 'exact' | 'none' | 'estimated';
export const COUNT_MODES: readonly CountMode[] = ['exact', 'none', 'estimated'];

export function parseCountMode(value: string | string[] | undefined): CountMode {
  if (value === undefined) return 'exact';
  if (Array.isArray(value) || !(COUNT_MODES as readonly string[]).includes(value)) {
    const reason = `must be one of ${COUNT_MODES.join(', ')}`;
    throw new BadRequestError(`The query parameter "count" ${reason}.`, {
      invalidParams: [{ name: 'count', reason }],
    });
  }
  return value as CountMode;
}

export interface Count {
  total: number | null;
  estimated: boolean;
}

/** The planner's row estimate of a query on PostgreSQL (the top plan node's `Plan Rows`). */
async function plannerEstimate(db: AnyDb, query: ResourceQuery): Promise<number> {
  const compiled = query.select(sql.lit(1).as('one')).compile();
  const result = await db.executeQuery<Record<string, unknown>>({
    ...compiled,
    sql: `explain (format json) ${compiled.sql}`,
    queryId: createQueryId(),
  });
  const cell = Object.values(result.rows[0] ?? {})[0];
  const plan = (typeof cell === 'string' ? JSON.parse(cell) : cell) as [{ Plan: { 'Plan Rows': number } }];
  return Math.max(0, Math.round(plan[0].Plan['Plan Rows']));
}

/** Runs a query (the list path passes its search-bounded runner). */
export type QueryRunner = <R>(query: { compile(): CompiledQuery; execute(): Promise<R[]> }) => Promise<R[]>;

const plainRunner: QueryRunner = (query) => query.execute();

/** What `count=none` answers. */
export const NO_COUNT: Readonly<Count> = Object.freeze({ total: null, estimated: false });

/** The statement that counts a base query's rows (its order dropped). */
export function countQuery(base: ResourceQuery) {
  return base.clearOrderBy().select((eb) => eb.fn.countAll().as('total'));
}

/** The exact total in the rows of a count statement. */
export function exactCount(rows: readonly Record<string, unknown>[]): Count {
  return { total: Number(rows[0]?.total ?? 0), estimated: false };
}

/** The total of a filtered, unordered base query in the requested mode. */
export async function countRows(
  db: AnyDb,
  dialect: Dialect,
  base: ResourceQuery,
  mode: CountMode,
  run: QueryRunner = plainRunner,
): Promise<Count> {
  if (mode === 'none') return NO_COUNT;
  if (mode === 'estimated' && dialect === 'postgres')
    return { total: await plannerEstimate(db, base.clearOrderBy()), estimated: true };
  return exactCount(await run<Record<string, unknown>>(countQuery(base)));
}

/** The sum of disjoint queries' counts (row-rule alternatives), in the requested mode. */
export async function countAlternatives(
  db: AnyDb,
  dialect: Dialect,
  branches: readonly ResourceQuery[],
  mode: CountMode,
  run: QueryRunner = plainRunner,
): Promise<Count> {
  if (mode === 'none') return NO_COUNT;
  const counts = await Promise.all(branches.map((branch) => countRows(db, dialect, branch, mode, run)));
  return {
    total: counts.reduce((sum, count) => sum + (count.total ?? 0), 0),
    estimated: counts.some((count) => count.estimated),
  };
}

/** Where a page read began: rows skipped by OFFSET and rows asked for (the page plus one). */
export interface PageWindow {
  offset: number;
  take: number;
  /** Whether the page began after a keyset cursor (then it says nothing about the rows before it). */
  afterCursor: boolean;
}

/**
 * The exact total a page read proves without a count: a page with no row past it is the end of
 * the rows, so the total is the rows skipped plus the rows read. Null when the page is full, when
 * it began at a cursor, or when it is empty past the first page (a page beyond the end says nothing).
 */
export function totalFromPage(window: PageWindow, read: number): number | null {
  if (window.afterCursor || read >= window.take) return null;
  if (read === 0 && window.offset > 0) return null;
  return window.offset + read;
}

/**
 * The page and the total of a list read. Usually both statements run at once. For a search
 * counted exactly (`pageFirst`), the page is read first and the count runs only when the page is
 * full: a search most often finds less than a page (one title), and then the page alone gives the
 * exact total and the search, the costly part, runs once instead of twice. A broad search pays
 * page + count instead of the slower of the two; its page (the first rows in the sort order) is
 * the cheap statement of the pair. Plain lists keep the parallel path: their page is full.
 */
export async function pageAndCount<R>(
  readPage: () => Promise<R[]>,
  count: () => Promise<Count>,
  window: PageWindow,
  pageFirst: boolean,
): Promise<{ rows: R[]; count: Count }> {
  if (!pageFirst) {
    // The count is sent first: it is the longer statement.
    const [total, rows] = await Promise.all([count(), readPage()]);
    return { rows, count: total };
  }
  const rows = await readPage();
  const known = totalFromPage(window, rows.length);
  return { rows, count: known === null ? await count() : { total: known, estimated: false } };
}

/** The pagination block of a list read (`pagination` in its answer), also the typed client's. */
export interface Pagination {
  page: number;
  limit: number;
  /** Null with `count=none`. */
  total: number | null;
  totalPages: number | null;
  hasMore: boolean;
  nextPage: number | null;
  prevPage: number | null;
  /** Opaque keyset cursor of the next page, or null on the last one. */
  nextCursor: string | null;
  /** Only with `count=estimated`: whether `total` is the planner's estimate. */
  totalEstimated?: boolean;
}

/** The pagination block: `hasMore` is whether a row past this page exists (read, not computed). */
export function pagination(
  page: number,
  limit: number,
  count: Count,
  hasMore: boolean,
  nextCursor: string | null,
  mode: CountMode,
): Pagination {
  const totalPages = count.total === null ? null : Math.ceil(count.total / limit);
  return {
    page,
    limit,
    total: count.total,
    totalPages,
    hasMore,
    nextPage: hasMore ? page + 1 : null,
    prevPage:
      page > 1 ? (totalPages === null ? page - 1 : Math.min(page - 1, Math.max(totalPages, 1))) : null,
    nextCursor: hasMore ? nextCursor : null,
    ...(mode === 'estimated' ? { totalEstimated: count.estimated } : {}),
  };
}
