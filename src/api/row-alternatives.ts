import { sql } from 'kysely';
import type { CompiledResource } from './compile.ts';
import { hookContext, type RequestScope } from './context.ts';
import type { ListPlan } from './query.ts';
import type { ResourceQuery, RowAlternative } from './types.ts';

export type { RowAlternative } from './types.ts';

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

/**
 * The page and the total of a list read whose row rule is given as alternatives: each alternative
 * is its own statement, sorted and cut to `offset + limit` rows (so each can walk its index), the
 * branches joined by UNION ALL and cut again; the total is the sum of the branches' counts.
 * `narrow` adds the request's filters and search to each branch.
 */
export async function listByAlternatives(
  scope: RequestScope,
  resource: CompiledResource,
  plan: ListPlan,
  alternatives: readonly RowAlternative[],
  narrow: (query: ResourceQuery) => Promise<ResourceQuery>,
  execute: <R>(query: { compile(): import('kysely').CompiledQuery; execute(): Promise<R[]> }) => Promise<R[]>,
) {
  const offset = (plan.page - 1) * plan.limit;
  const branches = await Promise.all(
    alternatives.map(async (alternative) => narrow(alternative(scope.db.selectFrom(resource.table)))),
  );
  const counts = branches.map((branch) =>
    execute<Record<string, unknown>>(branch.select((eb) => eb.fn.countAll().as('total'))),
  );
  const pages = branches.map((branch, index) => {
    let page = branch.select(resource.select);
    for (const term of plan.sort)
      page = page.orderBy(`${resource.table}.${term.column}`, term.desc ? 'desc' : 'asc');
    return scope.db.selectFrom(page.limit(offset + plan.limit).as(`b${index}`)).selectAll() as ResourceQuery;
  });
  let union = pages[0]!;
  for (const page of pages.slice(1)) union = union.unionAll(page);
  let rowsQuery = scope.db.selectFrom(union.as('u')).selectAll() as ResourceQuery;
  for (const term of plan.sort)
    rowsQuery = rowsQuery.orderBy(sql.ref(`u.${term.column}`), term.desc ? 'desc' : 'asc');
  rowsQuery = rowsQuery.limit(plan.limit).offset(offset);
  const [rows, ...totals] = await Promise.all([execute<Record<string, unknown>>(rowsQuery), ...counts]);
  const total = totals.reduce((sum, [row]) => sum + Number(row?.total ?? 0), 0);
  return { rows, total };
}
