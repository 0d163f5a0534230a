import { sql, type AliasedRawBuilder } from 'kysely';
import type { CompiledResource } from '../resource/compile.ts';
import { toStorage } from '../resource/column-types.ts';
import type { AnyDb, RequestScope } from '../request/context.ts';
import type { ListPlan } from '../request/query.ts';
import type { FilterNode } from '../request/filters.ts';
import { listRecords } from '../read/read.ts';
import { formatRecord } from '../read/format.ts';
import type { ApiRecord } from '../resource/types.ts';
import type { Dialect } from '../../db/url.ts';
import type { RowSnapshot } from './outbox.ts';

/**
 * Which rows of a change a subscriber may read, decided by the list read itself: the subscriber's
 * list plan (its filter and fields) runs through `listRecords` with the caller's scope (requiredAuth
 * was checked at connect; tenant scope, beforeQuery or rowAlternatives and afterQuery run here as
 * for any list request), over a FROM that holds the recorded rows instead of the table. So the
 * row as it was at the change (before an update or delete, after a create or update) is judged by
 * the very rules a list request would apply to it now, without a second, hand-written rule.
 *
 * Hooks that join other tables keep reading those tables; a hook that itself reads the resource's
 * own table through `ctx.db` reads the recorded rows.
 */

/** The stored form of a recorded row's columns, as the write path binds them. */
function storedValues(resource: CompiledResource, row: RowSnapshot, dialect: Dialect): ApiRecord {
  const values: ApiRecord = {};
  for (const column of resource.columns)
    values[column] = toStorage(resource.columnTypes.get(column)!, row[column] ?? null, dialect);
  return values;
}

/** The recorded rows as a derived table named like the resource's table. */
function recordedTable(
  resource: CompiledResource,
  rows: readonly RowSnapshot[],
  dialect: Dialect,
): AliasedRawBuilder<unknown, string> {
  const stored = rows.map((row) => storedValues(resource, row, dialect));
  if (dialect === 'postgres') {
    // The table's own row type: every column with its exact SQL type, whatever the hooks compare.
    const json = JSON.stringify(stored, (_key, value: unknown) =>
      typeof value === 'bigint' ? value.toString() : value,
    );
    return sql`(select * from json_populate_recordset(null::${sql.table(resource.table)}, ${json}::json))`.as(
      resource.table,
    );
  }
  const columns = [...resource.columns];
  const selects = stored.map(
    (values) =>
      sql`select ${sql.join(columns.map((column) => sql`${values[column]} as ${sql.ref(column)}`))}`,
  );
  return sql`(${sql.join(selects, sql` union all `)})`.as(resource.table);
}

/** The database with `selectFrom(<the resource's table>)` reading the recorded rows instead. */
function readingRecorded(db: AnyDb, table: string, from: AliasedRawBuilder<unknown, string>): AnyDb {
  return new Proxy(db, {
    get(target, property) {
      if (property === 'selectFrom')
        return (what: unknown) =>
          what === table ? target.selectFrom(from) : target.selectFrom(what as never);
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** A subscriber's list read, as visibility needs it. */
export interface ListView {
  resource: CompiledResource;
  plan: ListPlan;
  scope: RequestScope;
}

/**
 * The recorded rows this view may read, by primary key (as text), each in the list's JSON shape and
 * `fields`. The rows' primary keys must be distinct.
 */
export async function visibleRows(
  view: ListView,
  rows: readonly RowSnapshot[],
): Promise<Map<string, ApiRecord>> {
  const visible = new Map<string, ApiRecord>();
  if (rows.length === 0) return visible;
  const { resource, plan, scope } = view;
  const dialect = scope.request.server.dialect;
  const key = resource.primaryKey;
  const ids = rows.map((row) => row[key]);
  // The key condition also keeps the engine from a statement it compiled for the real table.
  const byKey: FilterNode = { kind: 'condition', column: key, op: 'in', value: ids };
  const filter: FilterNode = plan.filter ? { kind: 'and', children: [plan.filter, byKey] } : byKey;
  const db = readingRecorded(scope.db, resource.table, recordedTable(resource, rows, dialect));
  const { records } = await listRecords({ ...scope, verb: 'get', db }, resource, {
    ...plan,
    filter,
    page: 1,
    limit: rows.length,
    sort: [{ column: key, desc: false }],
    pattern: null,
    derive: [],
    count: 'none',
    cursor: null,
    position: null,
    countEmbedded: false,
  });
  for (const record of records) {
    const id = record[key];
    if (id === undefined || id === null) continue;
    visible.set(String(id), formatRecord(resource, record, [], scope.codecs, plan.fields));
  }
  return visible;
}
