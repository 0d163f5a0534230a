import type BetterSqlite3 from 'better-sqlite3';

const STATEMENT_CACHE_SIZE = 256;

/**
 * better-sqlite3 prepares every statement Kysely sends (parse and plan each time): keep the most
 * recently used ones by SQL text. SQLite re-prepares a cached statement itself after a schema change.
 */
export class StatementCache {
  readonly #db: BetterSqlite3.Database;
  readonly #statements = new Map<string, BetterSqlite3.Statement>();

  constructor(db: BetterSqlite3.Database) {
    this.#db = db;
  }

  prepare(sql: string): BetterSqlite3.Statement {
    let statement = this.#statements.get(sql);
    if (statement) {
      this.#statements.delete(sql); // re-inserted below: the Map's order is the recency order
    } else {
      statement = this.#db.prepare(sql);
      if (this.#statements.size >= STATEMENT_CACHE_SIZE)
        this.#statements.delete(this.#statements.keys().next().value!);
    }
    this.#statements.set(sql, statement);
    return statement;
  }
}
