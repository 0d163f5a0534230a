import { sql, type CompiledQuery, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import type { CompiledResource, Selection } from '../resource/compile.ts';
import { afterQuery, beforeQuery, type AnyDb, type RequestScope } from '../request/context.ts';
import type { DeriveNode, ListPlan } from '../request/query.ts';
import { caseInsensitiveLike, likePattern } from './search-sql.ts';
import type { FilterNode } from '../request/filters.ts';
import type { Dialect } from '../../db/url.ts';
import { readNow } from '../../db/read-now.ts';
import { andThen, type MaybePromise } from '../request/maybe-promise.ts';
import { executeSearchBounded, narrowBySearchIndex } from './search-plan.ts';
import { listByAlternatives, rowAlternativesFor } from './row-alternatives.ts';
import type { ApiRecord, ResourceQuery } from '../resource/types.ts';
import { checkEmbeddedRows } from '../request/derive-limits.ts';
import {
  countQuery,
  countRows,
  exactCount,
  NO_COUNT,
  pageAndCount,
  pagination,
  type Count,
  type QueryRunner,
} from './count.ts';
import {
  ID_SLOT,
  LIMIT_SLOT,
  OFFSET_SLOT,
  sharedScopeKey,
  storedStatement,
  storeStatement,
  withSlots,
} from './statements.ts';
import { afterCursor, encodeCursor } from '../request/cursor.ts';
import type { FieldSet } from '../request/fields.ts';

/**
 * The select list for a query: unqualified when it reads one table without joins (nothing can be
 * ambiguous, and PostgreSQL parses the shorter statement measurably faster), else `table.column`,
 * so that a hook's join cannot make a column ambiguous.
 */
function selectList(query: ResourceQuery, columns: { select: Selection; plainSelect: Selection }): Selection {
  const node = query.toOperationNode();
  return node.joins === undefined && node.from?.froms.length === 1 ? columns.plainSelect : columns.select;
}

/** The scoped base query of a resource: `FROM table`, then the resource's beforeQuery. */
export function scopedQuery(scope: RequestScope, resource: CompiledResource, db: AnyDb = scope.db) {
  return beforeQuery(scope, resource, db.selectFrom(resource.table) as ResourceQuery, db);
}

function withSearch(
  scope: RequestScope,
  query: ResourceQuery,
  resource: CompiledResource,
  pattern: string | null,
): ResourceQuery {
  if (pattern === null) return query;
  const dialect = scope.request.server.dialect;
  return query.where((eb) =>
    eb.or(
      resource.searchable.map((column) =>
        caseInsensitiveLike(dialect, sql.ref(`${resource.table}.${column}`), pattern),
      ),
    ),
  );
}

const COMPARISONS = {
  eq: '=',
  ne: '<>',
  gt: '>',
  gte: '>=',
  lt: '<',
  lte: '<=',
  in: 'in',
  nin: 'not in',
} as const;

/** A checked filter tree as SQL: every value a bound parameter, every column a configured one. */
function filterExpression(
  eb: ExpressionBuilder<any, any>, // eslint-disable-line @typescript-eslint/no-explicit-any -- application tables
  resource: CompiledResource,
  node: FilterNode,
  dialect: Dialect,
): Expression<SqlBool> {
  if (node.kind !== 'condition') {
    const parts = node.children.map((child) => filterExpression(eb, resource, child, dialect));
    return node.kind === 'and' ? eb.and(parts) : eb.or(parts);
  }
  const column = `${resource.table}.${node.column}`;
  switch (node.op) {
    case 'null':
      return eb(column, node.value ? 'is' : 'is not', null);
    case 'contains':
    case 'starts':
      return caseInsensitiveLike(dialect, sql.ref(column), likePattern(node.value as string, node.op));
    default:
      return eb(column, COMPARISONS[node.op], node.value);
  }
}

/**
 * One page of a resource plus the total, with the derived relations embedded: the plan as
 * checkListPlan left it (cursor decoded, derive authorized), so from here on only statements run.
 */
export async function listRecords(scope: RequestScope, resource: CompiledResource, plan: ListPlan) {
  const dialect = scope.request.server.dialect;
  const filter = plan.filter;
  const { secrets } = scope.request.server;
  // A cursor is decoded by checkListPlan; reaching here without that is the engine's error.
  if (plan.cursor !== null && plan.position === null) throw new Error('list plan not checked');
  const position = plan.position;
  const page = position?.page ?? plan.page;
  // The request's search and filters, on the scoped query or on each row-rule alternative.
  const narrow = async (query: ResourceQuery) => {
    let narrowed = withSearch(scope, query, resource, plan.pattern);
    if (filter) narrowed = narrowed.where((eb) => filterExpression(eb, resource, filter, dialect));
    return narrowBySearchIndex(scope.db, resource, plan.pattern, narrowed);
  };
  const execute: QueryRunner = (query) => executeSearchBounded(scope.db, query, plan.pattern !== null);
  // The page's rows of one query: its columns, after the cursor if there is one, in the sort order.
  const sorted = (query: ResourceQuery, qualified = false) => {
    const columns = plan.fields ?? resource;
    let rows = query.select(qualified ? columns.select : selectList(query, columns));
    if (position) rows = rows.where((eb) => afterCursor(eb, resource, plan.sort, position.values, dialect));
    for (const term of plan.sort)
      rows = rows.orderBy(`${resource.table}.${term.column}`, term.desc ? 'desc' : 'asc');
    return rows;
  };
  // One row past the page says whether there is a next one, whatever the count mode.
  const window = {
    offset: position ? 0 : (plan.page - 1) * plan.limit,
    take: plan.limit + 1,
    afterCursor: position !== null,
  };
  // A search counted exactly reads its page first: a page that is not full gives the total.
  const pageFirst = plan.pattern !== null && plan.count === 'exact';
  let count: Count;
  let read: ApiRecord[];
  const alternatives = await rowAlternativesFor(scope, resource);
  if (alternatives) {
    ({ rows: read, count } = await listByAlternatives(scope, resource, plan, alternatives, {
      narrow,
      execute,
      sorted: (query) => sorted(query, true),
      window,
      pageFirst,
    }));
  } else {
    const statements = await plainListStatements(scope, resource, plan, sorted);
    if (statements) {
      const run = (compiled: CompiledQuery) =>
        scope.db.executeQuery<ApiRecord>(compiled).then((result) => result.rows);
      const pageStatement = withSlots(statements.page, PAGE_SLOTS, [window.take, window.offset]);
      ({ rows: read, count } = await pageAndCount(
        () => run(pageStatement),
        async () =>
          plan.count === 'none' ? NO_COUNT : exactCount(await run(withSlots(statements.count, [], []))),
        window,
        pageFirst,
      ));
    } else {
      const base = await narrow(await scopedQuery(scope, resource));
      let rowsQuery = sorted(base).limit(window.take);
      if (window.offset > 0) rowsQuery = rowsQuery.offset(window.offset);
      ({ rows: read, count } = await pageAndCount(
        () => execute(rowsQuery) as Promise<ApiRecord[]>,
        () => countRows(scope.db, dialect, base, plan.count, execute),
        window,
        pageFirst,
      ));
    }
  }
  const hasMore = read.length > plan.limit;
  const rows = hasMore ? read.slice(0, plan.limit) : read;
  // Made before the hooks run: afterQuery may change the rows the cursor is made of.
  const nextCursor = hasMore
    ? encodeCursor(secrets, resource, plan.cursorQuery, rows.at(-1)!, page + 1)
    : null;
  const records = await loadRelations(scope, resource, rows, plan.derive, scope.db, plan.countEmbedded);
  return {
    records: await afterQuery(scope, resource, records),
    pagination: pagination(page, plan.limit, count, hasMore, nextCursor, plan.count),
  };
}

const PAGE_SLOTS = [LIMIT_SLOT, OFFSET_SLOT];

/**
 * The page and count statements of a plain list (no filter, search or cursor; counted exactly or
 * not at all) whose scoped query is shared by every request (sharedScopeKey): built and compiled
 * once per sort and `fields`, the page's LIMIT and OFFSET as slots. Undefined when the list is
 * built per request.
 */
async function plainListStatements(
  scope: RequestScope,
  resource: CompiledResource,
  plan: ListPlan,
  sorted: (query: ResourceQuery) => ResourceQuery,
): Promise<{ page: CompiledQuery; count: CompiledQuery } | undefined> {
  if (plan.filter !== null || plan.pattern !== null || plan.cursor !== null) return undefined;
  if (plan.count === 'estimated') return undefined;
  const shared = sharedScopeKey(scope, resource);
  if (shared === undefined) return undefined;
  const sort = plan.sort.map((term) => (term.desc ? '-' : '') + term.column).join(',');
  const key = `list ${shared} ${sort} ${plan.fieldsKey ?? ''}`;
  const { db } = scope;
  let page = storedStatement(resource, db, `${key} page`)?.compiled;
  let count = storedStatement(resource, db, `${key} count`)?.compiled;
  if (page === undefined || count === undefined) {
    const base = await scopedQuery(scope, resource);
    // The slots are parameters; Kysely's types ask for numbers there.
    const slot = (value: object) => value as unknown as number;
    const pageQuery = sorted(base).limit(slot(LIMIT_SLOT)).offset(slot(OFFSET_SLOT));
    page = storeStatement(resource, db, `${key} page`, pageQuery.compile(), PAGE_SLOTS);
    count = storeStatement(resource, db, `${key} count`, countQuery(base).compile(), []);
  }
  return page && count ? { page, count } : undefined;
}

/**
 * The single read of a resource without a beforeQuery hook, built and compiled once: nothing but
 * the id changes between requests. Null when a hook may change the query per request (then the
 * query is built each time), or when the compiled form does not have the id as its only parameter.
 */
export function itemStatement(resource: CompiledResource, db: AnyDb): CompiledQuery | null {
  if (resource.hooks.beforeQuery || resource.tenant !== null) return null;
  const stored = storedStatement(resource, db, 'item');
  if (stored) return stored.compiled;
  const compiled = db
    .selectFrom(resource.table)
    .select(resource.plainSelect)
    .where(`${resource.table}.${resource.primaryKey}`, '=', ID_SLOT)
    .compile();
  return storeStatement(resource, db, 'item', compiled, [ID_SLOT]);
}

/**
 * The single read of a resource whose beforeQuery reads only the caller
 * (`beforeQueryReads: 'caller'`): every anonymous caller gets the same query, and a signed-in caller
 * their own, so the hook runs and the statement compiles once per version and caller. Undefined
 * when it does not apply (then the read is built per request); null when the compiled form cannot
 * take the id as a slot.
 */
function callerItemStatement(
  scope: RequestScope,
  resource: CompiledResource,
  db: AnyDb,
): MaybePromise<CompiledQuery | null> | undefined {
  const shared = sharedScopeKey(scope, resource);
  if (shared === undefined || shared === '') return undefined;
  const key = `item ${shared}`;
  const stored = storedStatement(resource, db, key);
  if (stored) return stored.compiled;
  return andThen(scopedQuery(scope, resource, db), (scoped) =>
    storeStatement(resource, db, key, readById(scoped, resource, null, ID_SLOT), [ID_SLOT]),
  );
}

/** The scoped query's read by id, compiled: the fields asked for (or every column). */
function readById(
  scoped: ResourceQuery,
  resource: CompiledResource,
  fields: FieldSet | null,
  id: unknown,
): CompiledQuery {
  return scoped
    .select(selectList(scoped, fields ?? resource))
    .where(`${resource.table}.${resource.primaryKey}`, '=', id)
    .compile();
}

/** The stored row by id, as this caller may see it; no promise when SQLite reads it at once. */
function selectOne(
  scope: RequestScope,
  resource: CompiledResource,
  id: number | string,
  db: AnyDb,
  fields: FieldSet | null,
): MaybePromise<ApiRecord | undefined> {
  // Built for this request: the hook run, then compiled.
  const built = () =>
    andThen(scopedQuery(scope, resource, db), (scoped) => runOne(db, readById(scoped, resource, fields, id)));
  const statement = fields ? null : (itemStatement(resource, db) ?? callerItemStatement(scope, resource, db));
  if (statement === null || statement === undefined) return built();
  return andThen(statement, (compiled) =>
    compiled === null ? built() : runOne(db, withSlots(compiled, [ID_SLOT], [id])),
  );
}

/** The first row of a read by key: SQLite answers it at once, with no connection or promise. */
function runOne(db: AnyDb, compiled: CompiledQuery): MaybePromise<ApiRecord | undefined> {
  const rows = readNow<ApiRecord>(db, compiled);
  return rows ? rows[0] : db.executeQuery<ApiRecord>(compiled).then((result) => result.rows[0]);
}

/**
 * One record visible to this caller (through beforeQuery), or null. No promise when every step
 * answers at once (a SQLite point read, hooks that do not wait, no relations).
 */
export function findRecord(
  scope: RequestScope,
  resource: CompiledResource,
  id: number | string,
  derive: readonly DeriveNode[],
  db: AnyDb = scope.db,
  fields: FieldSet | null = null,
  /** Sees the stored row before the hooks (the ETag is made from it). */
  onRow?: (row: ApiRecord) => void,
): MaybePromise<ApiRecord | null> {
  return andThen(selectOne(scope, resource, id, db, fields), (row) => {
    if (!row) return null;
    onRow?.(row);
    const records = derive.length === 0 ? [row] : loadRelations(scope, resource, [row], derive, db);
    return andThen(
      andThen(records, (loaded) => afterQuery(scope, resource, loaded, db)),
      ([record]) => record ?? null,
    );
  });
}

function distinctKeys(rows: readonly ApiRecord[], column: string): unknown[] {
  const seen = new Map<string, unknown>();
  for (const row of rows) {
    const value = row[column];
    if (value !== null && value !== undefined) seen.set(String(value), value);
  }
  return [...seen.values()];
}

/**
 * Embed the requested relations: one query per relation and level (`WHERE key IN (...)`), whatever
 * the number of rows. Related resources keep their own scope (beforeQuery) and afterQuery. The
 * tree was authorized before (authorizeDerive); `countEmbedded` false: the plan bounds the rows.
 */
export async function loadRelations(
  scope: RequestScope,
  resource: CompiledResource,
  rows: ApiRecord[],
  derive: readonly DeriveNode[],
  db: AnyDb = scope.db,
  countEmbedded = true,
): Promise<ApiRecord[]> {
  if (derive.length === 0 || rows.length === 0) return rows;
  for (const node of derive) {
    const relation = node.relation;
    const target = relation.target;
    const ownKey = relation.type === 'hasMany' ? resource.primaryKey : relation.foreignKey;
    const theirKey = relation.type === 'hasMany' ? relation.foreignKey : relation.targetKey;
    const keys = distinctKeys(rows, ownKey);
    let related: ApiRecord[] = [];
    if (keys.length > 0) {
      let query = db.selectFrom(target.table) as ResourceQuery;
      if (target.resource) query = await beforeQuery(scope, target.resource, query, db);
      const primaryKey = target.resource?.primaryKey ?? relation.targetKey;
      query = query
        .select(selectList(query, node.fields ?? target))
        .where(`${target.table}.${theirKey}`, 'in', keys)
        .orderBy(`${target.table}.${primaryKey}`, 'asc');
      related = (await query.execute()) as ApiRecord[];
      if (target.resource) {
        related = await loadRelations(scope, target.resource, related, node.children, db, countEmbedded);
        related = await afterQuery(scope, target.resource, related, db);
      }
    }
    if (relation.type === 'hasMany') {
      const groups = new Map<string, ApiRecord[]>();
      for (const child of related) {
        const key = String(child[theirKey]);
        const group = groups.get(key);
        if (group) group.push(child);
        else groups.set(key, [child]);
      }
      for (const row of rows) row[relation.name] = groups.get(String(row[ownKey])) ?? [];
    } else {
      const byKey = new Map(related.map((parent) => [String(parent[theirKey]), parent]));
      for (const row of rows) row[relation.name] = byKey.get(String(row[ownKey])) ?? null;
    }
  }
  if (countEmbedded) checkEmbeddedRows(rows, derive);
  return rows;
}
