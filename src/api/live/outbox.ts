import { sql } from 'kysely';
import type { Dialect } from '../../db/url.ts';
import type { CompiledResource } from '../resource/compile.ts';
import { FROM_STORAGE } from '../resource/column-types.ts';
import type { AnyDb } from '../request/context.ts';
import type { ApiRecord } from '../resource/types.ts';

/**
 * The outbox of live resources: every create, update and delete made through the resource API is
 * noted on its transaction, and written to `live_changes` just before that transaction commits
 * (`writeNotedChanges`), so an event exists exactly when its change does: a rolled-back write
 * leaves none, and a retried transaction notes its changes again on its own, fresh transaction.
 *
 * Event ids are handed out per resource by `live_sequences`: the transaction increments its
 * resource's row as its last statements before COMMIT and holds that row's lock until it commits
 * (SQLite runs one writer at a time anyway). Two transactions therefore take their ids in the order
 * they commit, ids have no gaps, and a reader that has seen id N has seen every id below it.
 */

export type ChangeKind = 'created' | 'updated' | 'deleted';

/** A row as JSON values (every column, hidden ones included): what visibility is decided on. */
export type RowSnapshot = Record<string, unknown>;

export interface NotedChange {
  kind: ChangeKind;
  before: RowSnapshot | null;
  after: RowSnapshot | null;
}

/** A stored event of one resource. */
export interface LiveChange extends NotedChange {
  resource: string;
  id: number;
  changedAt: string;
}

/** What a committed transaction wrote: per resource, its last event id. */
export type WrittenChanges = Map<string, number>;

const noted = new WeakMap<object, Map<string, NotedChange[]>>();

/** The stored row as JSON values (each column converted by its type), for the outbox. */
export function snapshotOf(resource: CompiledResource, row: ApiRecord): RowSnapshot {
  const snapshot: RowSnapshot = {};
  for (const column of resource.columns) {
    const value = row[column];
    snapshot[column] =
      value === null || value === undefined ? null : FROM_STORAGE[resource.columnTypes.get(column)!](value);
  }
  return snapshot;
}

/** Whether changes of this resource are recorded (`live: true`). */
export function isLive(resource: CompiledResource): boolean {
  return resource.config.live === true;
}

/** Note a change on the transaction that makes it; nothing for a resource that is not live. */
export function noteChange(
  trx: AnyDb,
  resource: CompiledResource,
  kind: ChangeKind,
  before: ApiRecord | null | undefined,
  after: ApiRecord | null | undefined,
): void {
  if (!isLive(resource)) return;
  let byResource = noted.get(trx);
  if (!byResource) noted.set(trx, (byResource = new Map()));
  let list = byResource.get(resource.name);
  if (!list) byResource.set(resource.name, (list = []));
  list.push({
    kind,
    before: before ? snapshotOf(resource, before) : null,
    after: after ? snapshotOf(resource, after) : null,
  });
}

/** Rows of one multi-row insert into live_changes (7 parameters each, far under every limit). */
const ROWS_PER_INSERT = 500;

/**
 * Write the changes noted on `trx` to the outbox, taking their ids: call as the last work of the
 * transaction, right before COMMIT (the sequence rows stay locked until then). Resources are taken
 * in name order, so two transactions never wait for each other's sequence rows in a cycle.
 */
export async function writeNotedChanges(
  trx: AnyDb,
  dialect: Dialect,
  now: string,
): Promise<WrittenChanges | null> {
  const byResource = noted.get(trx);
  if (!byResource || byResource.size === 0) return null;
  noted.delete(trx);
  const written: WrittenChanges = new Map();
  for (const resource of [...byResource.keys()].sort()) {
    const changes = byResource.get(resource)!;
    const last = await takeIds(trx, dialect, resource, changes.length);
    const first = last - changes.length + 1;
    const rows = changes.map((change, index) => ({
      resource,
      id: first + index,
      kind: change.kind,
      before_row: change.before ? JSON.stringify(change.before) : null,
      after_row: change.after ? JSON.stringify(change.after) : null,
      changed_at: now,
    }));
    for (let offset = 0; offset < rows.length; offset += ROWS_PER_INSERT)
      await trx
        .insertInto('live_changes')
        .values(rows.slice(offset, offset + ROWS_PER_INSERT))
        .execute();
    written.set(resource, last);
  }
  return written;
}

/** Reserve `count` ids of a resource; returns the last one. The row stays locked until commit. */
async function takeIds(trx: AnyDb, dialect: Dialect, resource: string, count: number): Promise<number> {
  // The UPDATE comes first and alone in the common case: it takes the row's exclusive lock at once
  // (an INSERT IGNORE that meets the row would take a shared lock first, and two writers upgrading
  // theirs deadlock on InnoDB).
  const taken = await increment(trx, dialect, resource, count);
  if (taken !== null) return taken;
  // The resource's first event: make its row (two first writers racing: one insert is ignored).
  const insert = trx.insertInto('live_sequences').values({ resource, last_id: 0 });
  if (dialect === 'mysql') await insert.ignore().execute();
  else await insert.onConflict((conflict) => conflict.column('resource').doNothing()).execute();
  const last = await increment(trx, dialect, resource, count);
  if (last === null) throw new Error(`live_sequences: no row for ${resource}`);
  return last;
}

/** Add `count` to the resource's last id and return it, or null when it has no row yet. */
async function increment(
  trx: AnyDb,
  dialect: Dialect,
  resource: string,
  count: number,
): Promise<number | null> {
  const update = trx
    .updateTable('live_sequences')
    .set({ last_id: sql`last_id + ${count}` })
    .where('resource', '=', resource);
  if (dialect !== 'mysql') {
    const row = (await update.returning('last_id').executeTakeFirst()) as { last_id: unknown } | undefined;
    return row ? Number(row.last_id) : null;
  }
  const result = await update.executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) return null;
  const row = (await trx
    .selectFrom('live_sequences')
    .select('last_id')
    .where('resource', '=', resource)
    .executeTakeFirstOrThrow()) as { last_id: unknown };
  return Number(row.last_id);
}

/** The last event id of a resource (0 before its first event). */
export async function lastEventId(db: AnyDb, resource: string): Promise<number> {
  const row = (await db
    .selectFrom('live_sequences')
    .select('last_id')
    .where('resource', '=', resource)
    .executeTakeFirst()) as { last_id: unknown } | undefined;
  return row ? Number(row.last_id) : 0;
}

interface StoredChange {
  resource: string;
  id: unknown;
  kind: string;
  before_row: string | null;
  after_row: string | null;
  changed_at: string;
}

/** Events of a resource after `afterId` (at most `limit`), in id order. */
export async function changesAfter(
  db: AnyDb,
  resource: string,
  afterId: number,
  limit: number,
  upTo?: number,
): Promise<LiveChange[]> {
  let query = db
    .selectFrom('live_changes')
    .select(['resource', 'id', 'kind', 'before_row', 'after_row', 'changed_at'])
    .where('resource', '=', resource)
    .where('id', '>', afterId);
  if (upTo !== undefined) query = query.where('id', '<=', upTo);
  const rows = (await query.orderBy('id', 'asc').limit(limit).execute()) as StoredChange[];
  return rows.map((row) => ({
    resource: row.resource,
    id: Number(row.id),
    kind: row.kind as ChangeKind,
    before: row.before_row === null ? null : (JSON.parse(row.before_row) as RowSnapshot),
    after: row.after_row === null ? null : (JSON.parse(row.after_row) as RowSnapshot),
    changedAt: String(row.changed_at),
  }));
}

/** When the event with this id was recorded, or null when the outbox no longer holds it. */
export async function changedAt(db: AnyDb, resource: string, id: number): Promise<string | null> {
  const row = (await db
    .selectFrom('live_changes')
    .select('changed_at')
    .where('resource', '=', resource)
    .where('id', '=', id)
    .executeTakeFirst()) as { changed_at: string } | undefined;
  return row ? String(row.changed_at) : null;
}

/** Remove the events recorded before `before` (ISO time). */
export async function sweepChanges(db: AnyDb, before: string): Promise<void> {
  await db.deleteFrom('live_changes').where('changed_at', '<', before).execute();
}
