import type BetterSqlite3 from 'better-sqlite3';

const STATEMENT_CACHE_SIZE = 256;
/**
 * A plan step that looks rows up by equality only (`(id=?)`, `(a=? AND b=?)`), never a scan, a
 * range or a temporary sort; `LEFT-JOIN` marks the inner table of a left join. Whether the lookup
 * is bounded depends on the index: see `isUniqueLookup`.
 */
const EQUALITY_LOOKUP =
  /^SEARCH \S+ USING (?:(INTEGER PRIMARY KEY)|(?:COVERING )?INDEX (\S+)) \((\w+=\?(?: AND \w+=\?)*)\)(?: LEFT-JOIN)?$/;

/**
 * How long a verdict holds. A plan can change under the same text: ANALYZE (statistics of a table
 * that was tiny when analysed make SQLite scan it rather than look a row up by key), a new or
 * dropped index.
 */
const VERDICT_MS = 30_000;

interface Cached {
  statement: BetterSqlite3.Statement | null;
  judgedAt: number;
}

/**
 * Statements so cheap that a trip to a worker thread would cost more than running them here:
 * session lookups, a user or token by its key, a record by id. Which statement qualifies is
 * decided once per SQL text from SQLite's own query plan; everything else goes to the threads.
 */
export class PointReads {
  readonly #db: BetterSqlite3.Database;
  readonly #cache = new Map<string, Cached>();

  readonly #verdictMs: number;
  readonly #now: () => number;

  /** `now` (milliseconds, monotonic) is for tests that step time rather than sleep. */
  constructor(db: BetterSqlite3.Database, options: { verdictMs?: number; now?: () => number } = {}) {
    this.#db = db;
    this.#verdictMs = options.verdictMs ?? VERDICT_MS;
    this.#now = options.now ?? (() => performance.now());
  }

  /** The rows, or undefined when the statement is not a point read (the caller sends it on). */
  tryRun(sql: string, parameters: readonly unknown[]): Record<string, unknown>[] | undefined {
    const statement = this.#statement(sql, parameters);
    return statement ? (statement.all(parameters) as Record<string, unknown>[]) : undefined;
  }

  #statement(sql: string, parameters: readonly unknown[]): BetterSqlite3.Statement | null {
    let cached = this.#cache.get(sql);
    const now = this.#now();
    if (cached && now - cached.judgedAt < this.#verdictMs) {
      this.#cache.delete(sql); // re-inserted below: the Map's order is the recency order
    } else {
      if (cached) this.#cache.delete(sql);
      cached = { statement: this.#classify(sql, parameters), judgedAt: now };
      if (this.#cache.size >= STATEMENT_CACHE_SIZE) this.#cache.delete(this.#cache.keys().next().value!);
    }
    this.#cache.set(sql, cached);
    return cached.statement;
  }

  #classify(sql: string, parameters: readonly unknown[]): BetterSqlite3.Statement | null {
    // EXPLAIN plans against the schema this connection last loaded; a read of the schema table
    // loads the current one (an index created since, on another connection).
    this.#db.prepare('SELECT count(*) FROM sqlite_schema').get();
    let statement: BetterSqlite3.Statement;
    try {
      statement = this.#db.prepare(sql);
    } catch {
      return null; // for example a table created after start on another connection: the threads answer
    }
    if (!statement.readonly || !statement.reader) return null;
    const plan = this.#db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(parameters) as { detail: string }[];
    return plan.length > 0 && plan.every((step) => this.#isUniqueLookup(step.detail)) ? statement : null;
  }

  /**
   * At most one row per lookup: the rowid, or a unique index with every one of its columns given
   * (a WITHOUT ROWID table's `PRIMARY KEY` step may name only part of its key: not taken). An equality on a non-unique index (`status=?`) can match most of a table (a count of
   * the published posts): that belongs on a reader thread, not on the event loop.
   */
  #isUniqueLookup(detail: string): boolean {
    const match = EQUALITY_LOOKUP.exec(detail);
    if (!match) return false;
    const [, primaryKey, index, terms] = match;
    if (primaryKey) return true;
    const definition = this.#db
      .prepare(`SELECT sql FROM sqlite_schema WHERE type = 'index' AND name = ?`)
      .get(index) as { sql: string | null } | undefined;
    // Automatic indexes back UNIQUE and PRIMARY KEY constraints (their sql is null).
    const unique =
      index!.startsWith('sqlite_autoindex_') || /^\s*CREATE\s+UNIQUE\b/i.test(definition?.sql ?? '');
    if (!unique) return false;
    const columns = this.#db.prepare(`SELECT count(*) AS n FROM pragma_index_info(?)`).get(index) as {
      n: number;
    };
    return terms!.split(' AND ').length >= columns.n;
  }
}
