import { sql } from 'kysely';
import type { Dialect } from '../../db/url.ts';
import { ftsTableName, trigramIndexName } from '../../db/search-index.ts';
import { compileApi, type CompiledResource } from '../resource/compile.ts';
import type { ApiConfig } from '../resource/types.ts';
import type { AnyDb } from '../request/context.ts';
import { searchIndexOf } from './search-plan.ts';

/** Why a column needs an index: what the resource declares about it. */
export type IndexUse = 'sortable' | 'filterable' | 'searchable' | 'relation key' | 'tenant';

export interface MissingIndex {
  resource: string;
  use: IndexUse;
  table: string;
  column: string;
  /** What would add it (SQL, or the migration helper for search). */
  statement: string;
}

export interface IndexReport {
  missing: MissingIndex[];
  /**
   * Declared tables that do not exist on this database (not migrated yet): their indexes are not
   * checked, since every column of a missing table would count as unindexed, the primary key too.
   */
  missingTables: string[];
  /** Facts that are not defects, for example that MariaDB has no substring index. */
  notes: string[];
}

/** Columns that lead an index (or are the primary key) of a table: a lookup or sort on them is indexed. */
async function leadingColumns(db: AnyDb, dialect: Dialect, table: string): Promise<Set<string>> {
  if (dialect === 'sqlite') {
    const { rows } = await sql<{ name: string }>`
      select ii.name from pragma_index_list(${table}) il, pragma_index_info(il.name) ii where ii.seqno = 0
      union select name from pragma_table_info(${table}) where pk = 1`.execute(db);
    return new Set(rows.map((row) => row.name));
  }
  if (dialect === 'postgres') {
    const { rows } = await sql<{ name: string }>`
      select a.attname as name from pg_index i
      join pg_attribute a on a.attrelid = i.indrelid and a.attnum = i.indkey[0]
      where i.indrelid = to_regclass(${table})`.execute(db);
    return new Set(rows.map((row) => row.name));
  }
  const { rows } = await sql<{ name: string }>`
    select column_name as name from information_schema.statistics
    where table_schema = database() and table_name = ${table} and seq_in_index = 1`.execute(db);
  return new Set(rows.map((row) => String(row.name)));
}

/**
 * The first two columns of each index of a table, as `first,second` (and `first` alone): a
 * tenant-scoped read (`WHERE tenant = ? ORDER BY column`) is served by an index on (tenant, column).
 */
async function leadingPairs(db: AnyDb, dialect: Dialect, table: string): Promise<Set<string>> {
  let rows: { index_name: string; position: number; name: string }[];
  if (dialect === 'sqlite') {
    ({ rows } = await sql<{ index_name: string; position: number; name: string }>`
      select il.name as index_name, ii.seqno as position, ii.name as name
      from pragma_index_list(${table}) il, pragma_index_info(il.name) ii where ii.seqno < 2`.execute(db));
  } else if (dialect === 'postgres') {
    ({ rows } = await sql<{ index_name: string; position: number; name: string }>`
      select i.indexrelid::text as index_name, k.n - 1 as position, a.attname as name
      from pg_index i cross join generate_series(1, 2) as k(n)
      join pg_attribute a on a.attrelid = i.indrelid and a.attnum = i.indkey[k.n - 1]
      where i.indrelid = to_regclass(${table})`.execute(db));
  } else {
    ({ rows } = await sql<{ index_name: string; position: number; name: string }>`
      select index_name, seq_in_index - 1 as position, column_name as name from information_schema.statistics
      where table_schema = database() and table_name = ${table} and seq_in_index <= 2`.execute(db));
  }
  const byIndex = new Map<string, string[]>();
  for (const row of rows) {
    const columns = byIndex.get(String(row.index_name)) ?? [];
    columns[Number(row.position)] = String(row.name);
    byIndex.set(String(row.index_name), columns);
  }
  const pairs = new Set<string>();
  for (const [first, second] of byIndex.values()) {
    if (first === undefined) continue;
    pairs.add(first);
    if (second !== undefined) pairs.add(`${first},${second}`);
  }
  return pairs;
}

/** Whether `table` exists on this database (a view counts: it is read like a table). */
async function tableExists(db: AnyDb, dialect: Dialect, table: string): Promise<boolean> {
  if (dialect === 'sqlite') {
    const { rows } = await sql<{ name: string }>`
      select name from sqlite_master where type in ('table', 'view') and name = ${table}`.execute(db);
    return rows.length > 0;
  }
  if (dialect === 'postgres') {
    const { rows } = await sql<{ present: boolean }>`
      select to_regclass(${table}) is not null as present`.execute(db);
    return rows[0]?.present === true;
  }
  const { rows } = await sql<{ name: string }>`
    select table_name as name from information_schema.tables
    where table_schema = database() and table_name = ${table}`.execute(db);
  return rows.length > 0;
}

function createIndex(table: string, column: string): string {
  return `CREATE INDEX ${table}_${column} ON ${table} (${column});`;
}

function searchStatement(dialect: Dialect, resource: CompiledResource): string {
  const columns = resource.searchable.map((c) => `'${c}'`).join(', ');
  const helper = `createSearchIndex(db, dialect, { table: '${resource.table}', columns: [${columns}] }) in a migration`;
  if (dialect === 'postgres') {
    const sqlText = resource.searchable
      .map(
        (c) =>
          `CREATE INDEX ${trigramIndexName(resource.table, c)} ON ${resource.table} USING gin (lower(${c}) gin_trgm_ops);`,
      )
      .join(' ');
    return `${helper} (CREATE EXTENSION IF NOT EXISTS pg_trgm; ${sqlText})`;
  }
  return `${helper} (an FTS5 table ${ftsTableName(resource.table)} with the trigram tokenizer and sync triggers)`;
}

/**
 * Every declared sortable, filterable and searchable field and every relation key of the resources
 * that no index serves on this database, with the statement that would add one.
 */
export async function checkIndexes(
  db: AnyDb,
  dialect: Dialect,
  resources: Iterable<CompiledResource>,
): Promise<IndexReport> {
  const leading = new Map<string, Promise<Set<string>>>();
  const existing = new Map<string, Promise<boolean>>();
  const exists = (table: string) => {
    if (!existing.has(table)) existing.set(table, tableExists(db, dialect, table));
    return existing.get(table)!;
  };
  const indexed = (table: string, column: string) => {
    if (!leading.has(table)) leading.set(table, leadingColumns(db, dialect, table));
    return leading.get(table)!.then((columns) => columns.has(column));
  };
  const pairs = new Map<string, Promise<Set<string>>>();
  const pairIndexed = (table: string, tenant: string, column: string) => {
    if (!pairs.has(table)) pairs.set(table, leadingPairs(db, dialect, table));
    return pairs.get(table)!.then((found) => found.has(column === tenant ? tenant : `${tenant},${column}`));
  };
  const missing: MissingIndex[] = [];
  const notes: string[] = [];
  // Tenant-scoped: every read is `WHERE tenant = ?`, so the tenant column leads the index of each
  // sort and filter, and an index leads with it at all.
  const needTenant = async (resource: CompiledResource, use: IndexUse, column: string) => {
    const tenant = resource.tenant!;
    if (!(await exists(resource.table))) return;
    if (!(await pairIndexed(resource.table, tenant, column)))
      missing.push({
        resource: resource.name,
        use,
        table: resource.table,
        column: column === tenant ? tenant : `${tenant}, ${column}`,
        statement:
          column === tenant
            ? createIndex(resource.table, tenant)
            : `CREATE INDEX ${resource.table}_${tenant}_${column} ON ${resource.table} (${tenant}, ${column});`,
      });
  };
  const need = async (resource: CompiledResource, use: IndexUse, table: string, column: string) => {
    if (!(await exists(table))) return; // reported once below, as a missing table
    if (!(await indexed(table, column)))
      missing.push({ resource: resource.name, use, table, column, statement: createIndex(table, column) });
  };

  for (const resource of resources) {
    const seen = new Set<string>();
    for (const [use, columns] of [
      ['sortable', resource.sortable],
      ['filterable', resource.filterable],
    ] as const) {
      for (const column of columns) {
        if (seen.has(column)) continue; // one index serves both uses
        seen.add(column);
        if (resource.tenant !== null) await needTenant(resource, use, column);
        else await need(resource, use, resource.table, column);
      }
    }
    // Without sorts or filters (each asking for an index led by it), the tenant column still needs one.
    if (resource.tenant !== null && seen.size === 0) await needTenant(resource, 'tenant', resource.tenant);
    for (const relation of resource.relations.values()) {
      // The loader reads `WHERE <their key> IN (…)` on the related table.
      const theirKey = relation.type === 'hasMany' ? relation.foreignKey : relation.targetKey;
      await need(resource, 'relation key', relation.target.table, theirKey);
    }
    if (resource.searchable.length > 0 && (await exists(resource.table))) {
      if (dialect === 'mysql') {
        notes.push(
          `${resource.name}: search (${resource.searchable.join(', ')}) scans the table on MySQL/MariaDB, bounded by max_statement_time`,
        );
      } else if ((await searchIndexOf(db, resource)) === 'none') {
        missing.push({
          resource: resource.name,
          use: 'searchable',
          table: resource.table,
          column: resource.searchable.join(', '),
          statement: searchStatement(dialect, resource),
        });
      }
    }
  }
  const missingTables: string[] = [];
  for (const [table, present] of existing) if (!(await present)) missingTables.push(table);
  return { missing, missingTables: missingTables.sort(), notes };
}

/** The line that says which declared tables are missing, and what to do about it. */
export function formatMissingTables(tables: readonly string[]): string {
  const names = tables.join(', ');
  return tables.length === 1
    ? `table ${names} does not exist on this database: run citadel migrate first (its indexes are not checked)`
    : `tables ${names} do not exist on this database: run citadel migrate first (their indexes are not checked)`;
}

/** The report as lines of text: the missing tables, if any, then one line per missing index. */
export function formatIndexReport(report: IndexReport): string[] {
  return [
    ...(report.missingTables.length > 0 ? [formatMissingTables(report.missingTables)] : []),
    ...report.missing.map(
      (m) =>
        `${m.resource}: ${m.use} ${m.table}.${m.column} has no usable index; add it with: ${m.statement}`,
    ),
    ...report.notes.map((note) => `note: ${note}`),
  ];
}

/**
 * Development start-up: one warning per missing index, so a declared sort or filter that would
 * scan the table is seen before it reaches production. Never stops the start.
 */
export async function warnAboutMissingIndexes(
  api: ApiConfig,
  db: AnyDb,
  dialect: Dialect,
  log: { warn(message: string): void },
): Promise<void> {
  try {
    const report = await checkIndexes(db, dialect, compileApi(api, dialect).values());
    if (report.missingTables.length > 0) log.warn(formatMissingTables(report.missingTables));
    for (const missing of report.missing)
      log.warn(formatIndexReport({ missing: [missing], missingTables: [], notes: [] })[0]!);
  } catch (error) {
    log.warn(`index check skipped: ${error instanceof Error ? error.message : String(error)}`);
  }
}
