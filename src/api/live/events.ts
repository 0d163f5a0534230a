import type { CompiledResource } from '../resource/compile.ts';
import type { ApiRecord } from '../resource/types.ts';
import type { IdCodecs } from '../resource/sqids.ts';
import type { ChangeKind, LiveChange, RowSnapshot } from './outbox.ts';
import { visibleRows, type ListView } from './visibility.ts';

/** One event as a subscriber receives it: `data` is `{ id, record? }` (no record for `deleted`). */
export interface LiveEvent {
  id: number;
  type: ChangeKind;
  data: { id: unknown; record?: ApiRecord };
}

/** The record's id as the API shows it (an obfuscated key encoded). */
export function publicId(resource: CompiledResource, codecs: IdCodecs, row: RowSnapshot): unknown {
  const id = row[resource.primaryKey];
  if (resource.pkObfuscated && typeof id === 'number')
    return codecs.of(resource.idSpaces.get(resource.primaryKey)!).encode(id);
  return id;
}

/**
 * Runs of changes in which no row appears twice on the same side (before, after): each run is
 * judged with one read per side.
 */
function runsOfDistinctRows(resource: CompiledResource, changes: readonly LiveChange[]): LiveChange[][] {
  const runs: LiveChange[][] = [];
  let run: LiveChange[] = [];
  let before = new Set<string>();
  let after = new Set<string>();
  for (const change of changes) {
    const b = change.before ? String(change.before[resource.primaryKey]) : null;
    const a = change.after ? String(change.after[resource.primaryKey]) : null;
    if ((b !== null && before.has(b)) || (a !== null && after.has(a))) {
      runs.push(run);
      run = [];
      before = new Set();
      after = new Set();
    }
    if (b !== null) before.add(b);
    if (a !== null) after.add(a);
    run.push(change);
  }
  if (run.length > 0) runs.push(run);
  return runs;
}

/**
 * What each change means to one view, in order: an update of a row the view could read before and
 * can read after is `updated`; one it can read only after is `created` (the row entered the view);
 * one it could read only before is `deleted` (it left, and its record is not sent); neither is
 * nothing (null). A create is judged on the row after, a delete on the row before.
 */
export async function eventsFor(
  view: ListView,
  changes: readonly LiveChange[],
): Promise<(LiveEvent | null)[]> {
  const { resource } = view;
  const key = resource.primaryKey;
  const events: (LiveEvent | null)[] = [];
  for (const run of runsOfDistinctRows(resource, changes)) {
    const befores = run.flatMap((change) => (change.before ? [change.before] : []));
    const afters = run.flatMap((change) => (change.after ? [change.after] : []));
    const [wasVisible, isVisible] = await Promise.all([
      visibleRows(view, befores),
      visibleRows(view, afters),
    ]);
    for (const change of run) {
      const before = change.before ? wasVisible.has(String(change.before[key])) : false;
      const record = change.after ? isVisible.get(String(change.after[key])) : undefined;
      const row = (change.after ?? change.before)!;
      const id = publicId(resource, view.scope.codecs, row);
      if (record) events.push({ id: change.id, type: before ? 'updated' : 'created', data: { id, record } });
      else if (before) events.push({ id: change.id, type: 'deleted', data: { id } });
      else events.push(null);
    }
  }
  return events;
}
