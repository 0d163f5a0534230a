/** A lower() for every Unicode letter, registered on each SQLite connection. */
export const SQLITE_UNICODE_LOWER = 'unicode_lower';

/**
 * The one method of a better-sqlite3 connection used here, named structurally so the published
 * declarations do not need `@types/better-sqlite3` (a development dependency).
 */
export interface SqliteFunctionHost {
  function(name: string, options: { deterministic: boolean }, fn: (value: unknown) => unknown): unknown;
}

/**
 * SQLite's own lower() folds ASCII only: searches compare Unicode lower case (`élan` finds `Élan`).
 * Every connection that may run a search registers it; worker.mjs repeats these lines because a
 * worker thread cannot load TypeScript.
 */
export function registerSqliteFunctions(db: SqliteFunctionHost): void {
  db.function(SQLITE_UNICODE_LOWER, { deterministic: true }, (value: unknown) =>
    typeof value === 'string' ? value.toLowerCase() : value,
  );
}
