import { sql } from 'kysely';
import type { CompiledResource } from '../resource/compile.ts';
import { hookContext, tenantScoped, type RequestScope } from '../request/context.ts';
import type { ListPlan } from '../request/query.ts';
import type { ApiRecord, ResourceQuery, RowAlternative } from '../resource/types.ts';
import { countAlternatives, pageAndCount, type Count, type PageWindow, type QueryRunner } from './count.ts';

export type { RowAlternative } from '../resource/types.ts';

/** The hook's alternatives for this list read, or null (then the plain beforeQuery rule applies). */
export async function rowAlternativesFor(
  scope: RequestScope,
  resource: CompiledResource,
): Promise<RowAlternative[] | null> {
  const hook = resource.hooks.rowAlternatives;
  if (!hook) return null;
  const alternatives = await hook(hookContext(scope, resource));
  return alternatives && alternatives.length > 0 ? alternatives : null;
}

/** How the list path reads one page: the pieces listByAlternatives applies to every branch. */
export interface BranchReading {
  /** The request's filters and search, on one branch. */
  narrow: (query: ResourceQuery) => Promise<ResourceQuery>;
  /** The statement runner (search-bounded on MariaDB). */
  execute: QueryRunner;
  /** The page's columns (table-qualified), the cursor condition if any, and the sort order. */
  sorted: (query: ResourceQuery) => ResourceQuery;
  /** Rows to skip and to take (the page plus one, to know whether there is a next page). */
  window: PageWindow;
  /** Read the page first and count only when it is full (see pageAndCount). */
  pageFirst: boolean;
}

/**
 * The page and the count of a list read whose row rule is given as alternatives: each alternative
 * is its own statement, sorted and cut to `offset + take` rows (so each can walk its index), the
 * branches joined by UNION ALL and cut again; the count is the sum of the branches' counts (the
 * alternatives are disjoint), in the request's count mode.
 */
export async function listByAlternatives(
  scope: RequestScope,
  resource: CompiledResource,
  plan: ListPlan,
  alternatives: readonly RowAlternative[],
  reading: BranchReading,
): Promise<{ rows: ApiRecord[]; count: Count }> {
  const { narrow, execute, sorted, window, pageFirst } = reading;
  const branches = await Promise.all(
    alternatives.map(async (alternative) =>
      narrow(
        alternative(tenantScoped(scope, resource, scope.db.selectFrom(resource.table) as ResourceQuery)),
      ),
    ),
  );
  const pages = branches.map(
    (branch, index) =>
      scope.db
        .selectFrom(
          sorted(branch)
            .limit(window.offset + window.take)
            .as(`b${index}`),
        )
        .selectAll() as ResourceQuery,
  );
  let union = pages[0]!;
  for (const page of pages.slice(1)) union = union.unionAll(page);
  let rowsQuery = scope.db.selectFrom(union.as('u')).selectAll() as ResourceQuery;
  for (const term of plan.sort)
    rowsQuery = rowsQuery.orderBy(sql.ref(`u.${term.column}`), term.desc ? 'desc' : 'asc');
  rowsQuery = rowsQuery.limit(window.take);
  if (window.offset > 0) rowsQuery = rowsQuery.offset(window.offset);
  return pageAndCount(
    () => execute<ApiRecord>(rowsQuery),
    () => countAlternatives(scope.db, scope.request.server.dialect, branches, plan.count, execute),
    window,
    pageFirst,
  );
}
