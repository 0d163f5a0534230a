import type BetterSqlite3 from 'better-sqlite3';

const STATEMENT_CACHE_SIZE = 256;
/**
 * A plan step that reads a bounded number of rows: an index or primary-key lookup by equality only
 * (`(id=?)`, `(a=? AND b=?)`), never a scan, a range or a temporary sort.
 */
const EQUALITY_LOOKUP =
  /^SEARCH \S+ USING (?:INTEGER PRIMARY KEY|PRIMARY KEY|(?:COVERING )?INDEX \S+) \((?:\w+=\?)(?: AND \w+=\?)*\)$/;

interface Cached {
  statement: BetterSqlite3.Statement | null;
}

/**
 * Statements so cheap that a trip to a worker thread would cost more than running them here:
 * session lookups, a user or token by its key, a record by id. Which statement qualifies is
 * decided once per SQL text from SQLite's own query plan; everything else goes to the threads.
 */
export class PointReads {
  readonly #db: BetterSqlite3.Database;
  readonly #cache = new Map<string, Cached>();

  constructor(db: BetterSqlite3.Database) {
    this.#db = db;
  }

  /** The rows, or undefined when the statement is not a point read (the caller sends it on). */
  tryRun(sql: string, parameters: readonly unknown[]): Record<string, unknown>[] | undefined {
    const statement = this.#statement(sql, parameters);
    return statement ? (statement.all(parameters) as Record<string, unknown>[]) : undefined;
  }

  #statement(sql: string, parameters: readonly unknown[]): BetterSqlite3.Statement | null {
    let cached = this.#cache.get(sql);
    if (cached) {
      this.#cache.delete(sql); // re-inserted below: the Map's order is the recency order
    } else {
      cached = { statement: this.#classify(sql, parameters) };
      if (this.#cache.size >= STATEMENT_CACHE_SIZE) this.#cache.delete(this.#cache.keys().next().value!);
    }
    this.#cache.set(sql, cached);
    return cached.statement;
  }

  #classify(sql: string, parameters: readonly unknown[]): BetterSqlite3.Statement | null {
    let statement: BetterSqlite3.Statement;
    try {
      statement = this.#db.prepare(sql);
    } catch {
      return null; // for example a table created after start on another connection: the threads answer
    }
    if (!statement.readonly || !statement.reader) return null;
    const plan = this.#db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(parameters) as { detail: string }[];
    return plan.length > 0 && plan.every((step) => EQUALITY_LOOKUP.test(step.detail)) ? statement : null;
  }
}
