import { CompiledQuery, MysqlAdapter, PostgresAdapter, SqliteAdapter, sql } from 'kysely';
import { ftsTableName } from '../../db/search-index.ts';
import { isMariaDb } from '../../db/mariadb.ts';
import { HttpError } from '../../core/errors.ts';
import type { CompiledResource } from '../resource/compile.ts';
import type { AnyDb } from '../request/context.ts';
import { LIKE_ESCAPE } from './search-sql.ts';
import type { ResourceQuery } from '../resource/types.ts';

/** Trigram indexes cannot serve shorter terms: those are answered by the (bounded) scan. */
export const MIN_INDEXED_TERM = 3;
/** MariaDB has no substring index: a search statement is stopped after this long (503). */
export const SEARCH_TIME_LIMIT_SECONDS = 5;

/** What the database has for a resource's searchable columns. */
export type SearchIndexKind = 'fts5' | 'trigram' | 'none';

const probes = new WeakMap<object, Map<string, Promise<SearchIndexKind>>>();

function dialectOf(db: AnyDb): 'sqlite' | 'postgres' | 'mysql' | 'other' {
  const adapter = db.getExecutor().adapter;
  if (adapter instanceof SqliteAdapter) return 'sqlite';
  if (adapter instanceof PostgresAdapter) return 'postgres';
  if (adapter instanceof MysqlAdapter) return 'mysql';
  return 'other';
}

async function probe(db: AnyDb, resource: CompiledResource): Promise<SearchIndexKind> {
  const dialect = dialectOf(db);
  if (dialect === 'sqlite') {
    const columns = await sql<{
      name: string;
    }>`select name from pragma_table_info(${ftsTableName(resource.table)})`.execute(db);
    const indexed = new Set(columns.rows.map((row) => row.name));
    // An FTS table missing a searchable column would miss its matches: then it is not used at all.
    return indexed.size > 0 && resource.searchable.every((c) => indexed.has(c)) ? 'fts5' : 'none';
  }
  if (dialect === 'postgres') {
    const { rows } = await sql<{ indexdef: string }>`
      select indexdef from pg_indexes where tablename = ${resource.table} and indexdef like '%gin_trgm_ops%'`.execute(
      db,
    );
    const covered = (column: string) =>
      rows.some((row) =>
        new RegExp(`lower\\(\\(?"?${column}"?\\)?(?:::text)?\\) gin_trgm_ops`).test(row.indexdef),
      );
    return resource.searchable.every(covered) ? 'trigram' : 'none';
  }
  return 'none';
}

/** Which index serves the resource's search on this database (looked up once per database). */
export function searchIndexOf(db: AnyDb, resource: CompiledResource): Promise<SearchIndexKind> {
  const key = db.getExecutor().adapter; // one per Kysely instance and its transactions
  let byTable = probes.get(key);
  if (!byTable) probes.set(key, (byTable = new Map()));
  let kind = byTable.get(resource.table);
  if (!kind) {
    kind = probe(db, resource).catch(() => 'none' as const);
    byTable.set(resource.table, kind);
  }
  return kind;
}

/** The search term back from the engine's LIKE pattern (`%…%`, lower-cased, `!` escapes). */
export function termOfPattern(pattern: string): string {
  return pattern.slice(1, -1).replace(new RegExp(`${LIKE_ESCAPE}(.)`, 'gsu'), '$1');
}

/**
 * Narrow a search to the rows its index finds. The query keeps its substring condition: the index
 * only picks candidates (FTS5's trigrams of the case-folded text), so the rows are exactly the
 * ones the scan alone would return. PostgreSQL needs nothing here: its planner matches the
 * `lower(column)` of the search to the trigram index by itself.
 */
export async function narrowBySearchIndex(
  db: AnyDb,
  resource: CompiledResource,
  pattern: string | null,
  query: ResourceQuery,
): Promise<ResourceQuery> {
  if (pattern === null) return query;
  const term = termOfPattern(pattern);
  if ([...term].length < MIN_INDEXED_TERM) return query;
  if ((await searchIndexOf(db, resource)) !== 'fts5') return query;
  const fts = ftsTableName(resource.table);
  // One FTS5 phrase: its trigrams in sequence, which is a substring match.
  const phrase = `"${term.replace(/"/g, '""')}"`;
  return query.where(
    sql.ref(`${resource.table}.${resource.primaryKey}`),
    'in',
    sql`(select rowid from ${sql.table(fts)} where ${sql.table(fts)} match ${phrase})`,
  );
}

/** MariaDB's ER_STATEMENT_TIMEOUT (mysql2 has no name for it) and MySQL's ER_QUERY_TIMEOUT. */
function isStatementTimeout(error: unknown): boolean {
  const { errno, code } = (error ?? {}) as { errno?: unknown; code?: unknown };
  return errno === 1969 || code === 'ER_QUERY_TIMEOUT';
}

/**
 * Run a list statement; a search on MariaDB (a full scan there) runs under `max_statement_time`,
 * so one broad search cannot hold a pooled connection for minutes. Past it: 503.
 */
export async function executeSearchBounded<R>(
  db: AnyDb,
  query: { compile(): CompiledQuery; execute(): Promise<R[]> },
  searching: boolean,
): Promise<R[]> {
  if (!searching || dialectOf(db) !== 'mysql' || !(await isMariaDb(db))) return query.execute();
  const compiled = query.compile();
  const bounded = CompiledQuery.raw(
    `SET STATEMENT max_statement_time=${SEARCH_TIME_LIMIT_SECONDS} FOR ${compiled.sql}`,
    [...compiled.parameters],
  );
  try {
    return (await db.executeQuery<R>(bounded)).rows;
  } catch (error) {
    if (isStatementTimeout(error))
      throw new HttpError(503, 'The search took too long. Use a longer term or a filter.');
    throw error;
  }
}
