import type { CompiledRelation, CompiledResource } from '../resource/compile.ts';
import { toStorage } from '../resource/column-types.ts';
import { afterSave, beforeSave, type AnyDb } from '../request/context.ts';
import { isMariaDb } from '../../db/mariadb.ts';
import { PARAMETER_LIMITS } from '../../db/insert.ts';
import type { ApiRecord } from '../resource/types.ts';
import type { Dialect } from '../../db/url.ts';
import type { HookContext } from '../resource/types.ts';
import { insertRow, readRow } from './write-sql.ts';
import { noteChange } from '../live/outbox.ts';

/** A belongsTo object of a payload item: a reference to an existing parent, or a parent to create. */
export type PreparedParent =
  | { relation: CompiledRelation; path: string; existing: unknown }
  | { relation: CompiledRelation; path: string; create: PreparedItem };

/** A payload item that passed validation, ids decoded, its parents and nested children split off. */
export interface PreparedItem {
  data: ApiRecord;
  parents: PreparedParent[];
  children: { relation: CompiledRelation; items: PreparedItem[] }[];
}

/** What one create request shares across its levels (write.ts's CreateRun). */
export interface LevelRun {
  readonly trx: AnyDb;
  readonly now: string;
  readonly dialect: Dialect;
  context(resource: CompiledResource): HookContext;
  existingParent(relation: CompiledRelation, path: string, key: unknown): Promise<ApiRecord>;
  /** The active organization's id, for tenant-scoped resources (403 without one). */
  tenantId(): number;
}

export function stampColumns(values: ApiRecord, columns: readonly string[], now: string): void {
  for (const column of columns) values[column] = now;
}

/** The columns to write, in the form the database driver binds (booleans 0/1, json as text, …). */
export function pickWritable(dialect: Dialect, resource: CompiledResource, data: ApiRecord): ApiRecord {
  const values: ApiRecord = {};
  // Only configured columns reach SQL, whatever a hook returned; own keys only, never inherited ones.
  for (const key of Object.keys(data)) {
    if (!resource.writable.has(key) || data[key] === undefined) continue;
    // The tenant column is the engine's alone: set on insert (createLevel), never changed.
    if (key === resource.tenant) continue;
    values[key] = toStorage(resource.columnTypes.get(key)!, data[key], dialect);
  }
  return values;
}

export interface CreatedRow {
  row: ApiRecord;
  record: ApiRecord;
}

/** Consecutive runs of rows with the same columns: one multi-row VALUES list needs one column list. */
function runsOfSameShape(rows: readonly ApiRecord[]): { start: number; rows: ApiRecord[] }[] {
  const runs: { start: number; rows: ApiRecord[]; shape: string }[] = [];
  rows.forEach((row, index) => {
    const shape = Object.keys(row).join(',');
    const last = runs.at(-1);
    if (last && last.shape === shape) last.rows.push(row);
    else runs.push({ start: index, rows: [row], shape });
  });
  return runs;
}

/** Whether the database answers a multi-row `INSERT … RETURNING` (MariaDB 10.5+, not MySQL). */
async function canReturnRows(trx: AnyDb, dialect: keyof typeof PARAMETER_LIMITS): Promise<boolean> {
  if (dialect !== 'mysql') return true;
  return isMariaDb(trx);
}

/**
 * Insert the rows of one level with multi-row `INSERT … RETURNING`, as few statements as the
 * driver's parameter limit allows, and return the stored rows in the order given. Generated keys
 * grow in VALUES order within one statement on every dialect, so the returned rows are put back in
 * that order by key (RETURNING itself promises no order).
 */
export async function insertRows(
  trx: AnyDb,
  resource: CompiledResource,
  dialect: keyof typeof PARAMETER_LIMITS,
  rows: readonly ApiRecord[],
): Promise<ApiRecord[]> {
  if (!(await canReturnRows(trx, dialect))) {
    // MySQL: no RETURNING; one insert and one read-back per row.
    const stored: ApiRecord[] = [];
    for (const values of rows) {
      const inserted = await insertRow(trx, resource, values);
      stored.push(inserted.row ?? (await readRow(trx, resource, inserted.id)));
    }
    return stored;
  }
  const stored: ApiRecord[] = new Array(rows.length);
  const key = resource.primaryKey;
  for (const run of runsOfSameShape(rows)) {
    const columns = Math.max(1, Object.keys(run.rows[0]!).length);
    // A level of a write is split into statements under the driver's parameter limit.
    const perStatement = Math.max(1, Math.floor(PARAMETER_LIMITS[dialect] / columns));
    for (let offset = 0; offset < run.rows.length; offset += perStatement) {
      const chunk = run.rows.slice(offset, offset + perStatement);
      // Executed as compiled: Kysely's execute() drops RETURNING rows where its adapter says
      // the dialect has none (its MySQL adapter, though MariaDB has them).
      const compiled = trx.insertInto(resource.table).values(chunk).returning(resource.plainSelect).compile();
      const returned = [...(await trx.executeQuery<ApiRecord>(compiled)).rows];
      if (returned.length !== chunk.length)
        throw new Error(`${resource.name}: ${chunk.length} rows inserted, ${returned.length} returned`);
      const numericKeys = returned.every((row) => Number.isFinite(Number(row[key])));
      if (numericKeys) returned.sort((a, b) => Number(a[key]) - Number(b[key]));
      returned.forEach((row, index) => (stored[run.start + offset + index] = row));
    }
  }
  return stored;
}

/**
 * Create the items of one level of a write, set-based: each item's parents and `beforeSave` in
 * order, then every row of the level in multi-row inserts, then each child relation as one level
 * of its own (all items' children together), then `afterSave` in order. Validation happened before;
 * hooks run once per item with the data a row-by-row write gives them, grouped by level.
 */
export async function createLevel(
  run: LevelRun,
  resource: CompiledResource,
  items: readonly PreparedItem[],
): Promise<CreatedRow[]> {
  if (items.length === 0) return [];
  const context = run.context(resource);
  const parentsOf: ApiRecord[] = [];
  const values: ApiRecord[] = [];
  for (const item of items) {
    const parents: ApiRecord = {};
    for (const parent of item.parents) {
      if ('create' in parent) continue;
      parents[parent.relation.name] = await run.existingParent(parent.relation, parent.path, parent.existing);
      item.data[parent.relation.foreignKey] = parent.existing;
    }
    for (const parent of item.parents) {
      if (!('create' in parent)) continue;
      const [created] = await createLevel(run, parent.relation.target.resource!, [parent.create]);
      item.data[parent.relation.foreignKey] = created!.row[parent.relation.targetKey];
      parents[parent.relation.name] = created!.record;
    }
    const data = await beforeSave(resource, item.data, context);
    const row = pickWritable(run.dialect, resource, data);
    if (resource.tenant !== null) row[resource.tenant] = run.tenantId();
    stampColumns(row, resource.createdStamps, run.now);
    parentsOf.push(parents);
    values.push(row);
  }

  const rows = await insertRows(run.trx, resource, run.dialect, values);
  for (const row of rows) noteChange(run.trx, resource, 'created', null, row);
  // Relation names never clash with columns (checked at start-up): the stored columns stay as they are.
  rows.forEach((row, index) => Object.assign(row, parentsOf[index]));

  // Children by relation, across all items of this level: one level (one insert set) per relation.
  const groups = new Map<string, { relation: CompiledRelation; owners: number[]; items: PreparedItem[] }>();
  items.forEach((item, index) => {
    for (const group of item.children) {
      let entry = groups.get(group.relation.name);
      if (!entry)
        groups.set(group.relation.name, (entry = { relation: group.relation, owners: [], items: [] }));
      for (const child of group.items) {
        child.data[group.relation.foreignKey] = rows[index]![resource.primaryKey];
        entry.owners.push(index);
        entry.items.push(child);
      }
      rows[index]![group.relation.name] = [];
    }
  });
  for (const { relation, owners, items: children } of groups.values()) {
    const created = await createLevel(run, relation.target.resource!, children);
    created.forEach((child, position) =>
      (rows[owners[position]!]![relation.name] as ApiRecord[]).push(child.record),
    );
  }

  const created: CreatedRow[] = [];
  for (const row of rows) created.push({ row, record: await afterSave(resource, row, context) });
  return created;
}
