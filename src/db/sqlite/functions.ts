import type BetterSqlite3 from 'better-sqlite3';

/** A lower() for every Unicode letter, registered on each SQLite connection. */
export const SQLITE_UNICODE_LOWER = 'unicode_lower';

/**
 * SQLite's own lower() folds ASCII only: searches compare Unicode lower case (`élan` finds `Élan`).
 * Every connection that may run a search registers it; worker.mjs repeats these lines because a
 * worker thread cannot load TypeScript.
 */
export function registerSqliteFunctions(db: BetterSqlite3.Database): void {
  db.function(SQLITE_UNICODE_LOWER, { deterministic: true }, (value: unknown) =>
    typeof value === 'string' ? value.toLowerCase() : value,
  );
}
