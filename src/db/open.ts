import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import {
  Kysely,
  MysqlDialect,
  PostgresDialect,
  SqliteDialect,
  type Dialect as KyselyDialect,
  type KyselyConfig,
} from 'kysely';
import type { Database } from './schema.ts';
import { parseDatabaseUrl, type Dialect } from './url.ts';
import { importOptional } from '../core/optional-dependency.ts';
import { registerSqliteFunctions } from './sqlite/functions.ts';
import { StatementCache } from './sqlite/statement-cache.ts';
import { withNamedStatements } from './pg-prepared.ts';
import { registerDirectReads } from './read-now.ts';
import { registerWriteGeneration, watchWrites, WriteGeneration } from './write-watch.ts';

/** Connections of the pool right now (SQLite: its one connection, never waited for here). */
export interface PoolUse {
  total: number;
  idle: number;
  waiting: number;
}

export interface OpenDatabase {
  db: Kysely<Database>;
  dialect: Dialect;
  close(): Promise<void>;
  /** For the pool-use metrics. */
  poolUse(): PoolUse;
}

export interface OpenDatabaseOptions {
  /** Called with every compiled statement: tests count queries with it. */
  onQuery?: (sql: string) => void;
  poolSize?: number;
  /**
   * An idle pooled connection failed (the server restarted or ended it). Without a listener the
   * driver's 'error' event would end the process; the pool replaces the connection by itself.
   */
  onConnectionError?: (error: Error) => void;
}

export { SQLITE_UNICODE_LOWER } from './sqlite/functions.ts';

/** Open a Kysely instance for DATABASE_URL. Drivers load lazily, so SQLite users need no pg or mysql2. */
export async function openDatabase(url: string, options: OpenDatabaseOptions = {}): Promise<OpenDatabase> {
  const { dialect, target } = parseDatabaseUrl(url);
  const log = options.onQuery
    ? (event: { level: string; query: { sql: string } }) => options.onQuery?.(event.query.sql)
    : undefined;

  if (dialect === 'sqlite' && target !== ':memory:') {
    mkdirSync(dirname(target), { recursive: true });
    // Long reads run on worker threads (see sqlite/driver.ts): a slow list never blocks the event loop.
    const { ThreadedSqliteDialect } = await import('./sqlite/driver.ts');
    const threaded = new ThreadedSqliteDialect({
      file: target,
      readers: options.poolSize,
      onDirectStatement: options.onQuery,
    });
    const db = watchedKysely(threaded, log);
    registerDirectReads(db, (query) => threaded.readNow(query));
    return { db, dialect, close: () => db.destroy(), poolUse: () => threaded.poolUse() };
  }

  if (dialect === 'sqlite') {
    // An in-memory database belongs to one connection: it stays on the main thread.
    const { default: SQLite } = await importOptional(
      'better-sqlite3',
      'A sqlite: DATABASE_URL',
      () => import('better-sqlite3'),
    );
    const sqlite = new SQLite(target);
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('busy_timeout = 5000');
    registerSqliteFunctions(sqlite);
    // Safe to cache: Kysely runs one statement at a time on its single SQLite connection.
    const statements = new StatementCache(sqlite);
    const db = watchedKysely(
      new SqliteDialect({
        database: { close: () => sqlite.close(), prepare: (text: string) => statements.prepare(text) },
      }),
      log,
    );
    return { db, dialect, close: () => db.destroy(), poolUse: () => ({ total: 1, idle: 1, waiting: 0 }) };
  }

  if (dialect === 'postgres') {
    const pg = await importOptional('pg', 'A postgres: DATABASE_URL', () => import('pg'));
    // A bounded wait for a connection: a hung server then fails requests (503) instead of holding them.
    const pool = new pg.default.Pool({
      connectionString: target,
      max: options.poolSize ?? 10,
      connectionTimeoutMillis: 5000,
    });
    pool.on('error', (error) => options.onConnectionError?.(error));
    // A client checked out of the pool (inside a transaction, between two of its queries) has no
    // pool listener: without one, a cut connection is an uncaught 'error' that ends the process.
    // Its next query fails instead, and the request answers 503 (src/http/response/outage.ts).
    pool.on('connect', (client) => client.on('error', (error) => options.onConnectionError?.(error)));
    // Hot statements are prepared once per connection under a name (see pg-prepared.ts).
    const db = watchedKysely(new PostgresDialect({ pool: withNamedStatements(pool) }), log);
    const poolUse = () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount });
    return { db, dialect, close: () => db.destroy(), poolUse };
  }

  const mysql = await importOptional('mysql2', 'A mysql: DATABASE_URL', () => import('mysql2'));
  const pool = mysql.createPool({
    uri: target,
    connectionLimit: options.poolSize ?? 10,
    // Timestamps are stored as strings; keep numbers as numbers and dates untouched.
    dateStrings: true,
    supportBigNumbers: true,
    bigNumberStrings: false,
    charset: 'utf8mb4',
  });
  const db = watchedKysely(new MysqlDialect({ pool }), log);
  return { db, dialect, close: () => db.destroy(), poolUse: () => mysqlPoolUse(pool) };
}

/** The tables kept in memory for a second (recent-rows.ts): their writes move the counter. */
const RECENT_ROW_TABLES: ReadonlySet<string> = new Set(['users', 'sessions', 'personal_access_tokens']);

/**
 * A Kysely instance whose writes to the sessions, users and tokens move a counter (`write-watch.ts`):
 * what the rows kept in memory (`recent-rows.ts`) check before they are answered.
 */
function watchedKysely(dialect: KyselyDialect, log: KyselyConfig['log']): Kysely<Database> {
  const generation = new WriteGeneration(RECENT_ROW_TABLES);
  const db = new Kysely<Database>({ dialect: watchWrites(dialect, generation), log });
  registerWriteGeneration(db, generation);
  return db;
}

/** mysql2 has no public pool counters; these arrays are what its own pool reads. */
function mysqlPoolUse(pool: object): PoolUse {
  const internals = pool as {
    _allConnections?: { length: number };
    _freeConnections?: { length: number };
    _connectionQueue?: { length: number };
  };
  return {
    total: internals._allConnections?.length ?? 0,
    idle: internals._freeConnections?.length ?? 0,
    waiting: internals._connectionQueue?.length ?? 0,
  };
}
