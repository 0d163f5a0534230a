import type { CompiledQuery } from 'kysely';

/** Answers a point read at once, or undefined (see `ThreadedSqliteDriver.readNow`). */
type DirectReader = (query: CompiledQuery) => Record<string, unknown>[] | undefined;

// Keyed by the Kysely instances `openDatabase` makes: a handful per process, never one per request.
const readers = new WeakMap<object, DirectReader>();

/** `db` (as `openDatabase` opened it) can answer some point reads without a promise. */
export function registerDirectReads(db: object, reader: DirectReader): void {
  readers.set(db, reader);
}

/**
 * The rows of `query` if `db` can read them at once (SQLite's point reads, outside a transaction),
 * else undefined: then execute it as usual. A transaction, another dialect, or a Kysely instance
 * made from `db` (`withPlugin`, `withSchema`) always answers undefined.
 */
export function readNow<Row>(db: object, query: CompiledQuery<Row>): Row[] | undefined {
  return readers.get(db)?.(query) as Row[] | undefined;
}
