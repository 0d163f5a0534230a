import type { WriteGeneration } from './write-watch.ts';

/** How long a row read stays in memory: the longest another process's change goes unseen. */
export const RECENT_ROW_MS = 1000;
/** Entries kept at most: past it, the oldest goes first. */
export const MAX_RECENT_ROWS = 10_000;

/**
 * Rows this process read in the last second (a session and its user, a token and its user), by
 * key. An entry is answered only while the database's write counter (write-watch.ts) has not moved
 * since it was read, so a sign-out, revocation, password change or user change made by this
 * process is seen by the next request; one made by another process within `RECENT_ROW_MS`. Misses
 * are not kept.
 */
export class RecentRows<Row> {
  readonly #entries = new Map<string, { row: Row; until: number }>();
  /** The counter's value the entries were read at: any other value empties the cache. */
  #generation: number;

  constructor(
    private readonly writes: WriteGeneration,
    private readonly ttlMs = RECENT_ROW_MS,
  ) {
    this.#generation = writes.value;
  }

  /** Take before reading a row to `set` later: a write meanwhile keeps the row out. */
  stamp(): number {
    return this.writes.value;
  }

  get(key: string): Row | undefined {
    if (this.#generation !== this.writes.value) return this.#clear();
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.until > performance.now()) return entry.row;
    this.#entries.delete(key);
    return undefined;
  }

  set(key: string, row: Row, stamp: number): void {
    if (stamp !== this.writes.value) return;
    if (this.#generation !== stamp) this.#clear();
    // Oldest first: a Map iterates in insertion order.
    if (this.#entries.size >= MAX_RECENT_ROWS) this.#entries.delete(this.#entries.keys().next().value!);
    this.#entries.set(key, { row, until: performance.now() + this.ttlMs });
  }

  #clear(): undefined {
    this.#entries.clear();
    this.#generation = this.writes.value;
    return undefined;
  }
}
