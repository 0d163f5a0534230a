import type { CompiledQuery } from 'kysely';
import type { CompiledResource } from '../resource/compile.ts';
import type { AnyDb } from '../request/context.ts';
import type { ApiRecord } from '../resource/types.ts';

/**
 * Precompiled write statements. A bulk create runs the same INSERT with other values a thousand
 * times: Kysely builds and compiles it once per resource and column list, then only the
 * parameters change.
 */

const INSERTS = new WeakMap<CompiledResource, Map<string, CompiledQuery>>();
const MAX_SHAPES = 64;

function cachedInsert(resource: CompiledResource, key: string): CompiledQuery | undefined {
  return INSERTS.get(resource)?.get(key);
}

function remember(resource: CompiledResource, key: string, query: CompiledQuery): void {
  let shapes = INSERTS.get(resource);
  if (!shapes) INSERTS.set(resource, (shapes = new Map()));
  // Column lists come from validated payloads and hooks: few shapes, but keep memory bounded.
  if (shapes.size >= MAX_SHAPES) shapes.clear();
  shapes.set(key, query);
}

/**
 * Insert one row. On PostgreSQL and SQLite the statement returns the stored row (defaults and
 * all), so no read-back is needed; MySQL/MariaDB have no RETURNING and return only the id.
 */
export async function insertRow(
  trx: AnyDb,
  resource: CompiledResource,
  values: ApiRecord,
): Promise<{ id: unknown; row: ApiRecord | null }> {
  const returning = trx.getExecutor().adapter.supportsReturning;
  const columns = Object.keys(values);
  const key = `${returning ? 'r' : 'n'}:${columns.join(',')}`;
  let compiled = cachedInsert(resource, key);
  if (compiled) {
    compiled = { ...compiled, parameters: columns.map((column) => values[column]) };
  } else {
    const insert = trx.insertInto(resource.table).values(values);
    compiled = returning ? insert.returning(resource.plainSelect).compile() : insert.compile();
    // Reuse it only when its parameters are exactly the values in column order (always the case
    // for plain values; anything Kysely turned into SQL instead is compiled again each time).
    const reusable =
      compiled.parameters.length === columns.length &&
      compiled.parameters.every((parameter, index) => parameter === values[columns[index]!]);
    if (reusable) remember(resource, key, compiled);
  }
  const result = await trx.executeQuery<ApiRecord>(compiled);
  if (returning) {
    const row = result.rows[0];
    if (!row) throw new Error(`${resource.name}: the insert returned no row`);
    return { id: row[resource.primaryKey], row };
  }
  return { id: Number(result.insertId), row: null };
}

/** The stored row with this primary key (MySQL/MariaDB, after an insert or an update). */
export async function readRow(trx: AnyDb, resource: CompiledResource, id: unknown): Promise<ApiRecord> {
  const row = (await trx
    .selectFrom(resource.table)
    .select(resource.select)
    .where(`${resource.table}.${resource.primaryKey}`, '=', id)
    .executeTakeFirst()) as ApiRecord | undefined;
  if (!row) throw new Error(`${resource.name}: saved row not found`);
  return row;
}
