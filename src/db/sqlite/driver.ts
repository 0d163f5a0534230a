import { AsyncLocalStorage } from 'node:async_hooks';
import {
  CompiledQuery,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type DialectAdapter,
  type Driver,
  type Kysely,
  type QueryCompiler,
  type QueryResult,
} from 'kysely';
import type BetterSqlite3 from 'better-sqlite3';
import { importOptional } from '../../core/optional-dependency.ts';
import { registerSqliteFunctions } from './functions.ts';
import { PointReads } from './point-reads.ts';
import { StatementCache } from './statement-cache.ts';
import { SqliteThread } from './thread.ts';

export interface ThreadedSqliteOptions {
  file: string;
  /** Reader threads (each one connection). Default 2: one per core of a small machine. */
  readers?: number;
  /**
   * Told of each statement that runs past Kysely's query log: transaction control (begin, commit,
   * rollback, savepoints) and the point reads answered at once (`readNow`). Statement counts
   * must include them.
   */
  onDirectStatement?: (sql: string) => void;
}

/** Connections in use right now, for the pool metrics. */
export interface ThreadedPoolUse {
  total: number;
  idle: number;
  waiting: number;
}

/** A statement that can only read, by its first keyword: the readers may take it. */
const READ_STATEMENT = /^\s*(?:select|with)\b/i;

/**
 * The connection whose transaction the current async flow opened. A statement this flow sends
 * through another handle (the root `db` inside `db.transaction().execute(...)`) belongs to that
 * transaction: SQLite has one writer, so waiting for it would wait for ourselves.
 */
const transactionOwner = new AsyncLocalStorage<RoutedConnection>();

/** The transaction this async flow has open, if any: its statements belong on the writer. */
function flowTransaction(): RoutedConnection | null {
  const owner = transactionOwner.getStore();
  return owner && owner.inTransaction && owner.holdsWriter ? owner : null;
}

/** First come, first served: the writer belongs to one Kysely connection at a time. */
class WriterLock {
  #tail: Promise<void> = Promise.resolve();
  #queued = 0;

  /** Holders and waiters: 0 when the writer is free. */
  get queued(): number {
    return this.#queued;
  }

  async acquire(): Promise<() => void> {
    let release!: () => void;
    const previous = this.#tail;
    this.#queued++;
    this.#tail = new Promise<void>((resolve) => (release = resolve));
    await previous;
    return () => {
      this.#queued--;
      release();
    };
  }
}

/**
 * The one connection that writes, on the main thread: writes and transactions are short and must
 * see their own changes at once, and better-sqlite3 runs them faster here than a thread hop would.
 */
class Writer {
  readonly lock = new WriterLock();
  readonly #statements: StatementCache;

  constructor(
    readonly db: BetterSqlite3.Database,
    private readonly onControl?: (sql: string) => void,
  ) {
    this.#statements = new StatementCache(db);
  }

  /** A transaction-control statement (begin, commit, savepoint…), reported to the query log. */
  control(sql: string): void {
    this.run(sql, []);
    this.onControl?.(sql);
  }

  run<R>(sql: string, parameters: readonly unknown[]): QueryResult<R> {
    const statement = this.#statements.prepare(sql);
    if (statement.reader) return { rows: statement.all(parameters) as R[] };
    const { changes, lastInsertRowid } = statement.run(parameters);
    return { rows: [], numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid) };
  }
}

class Pool {
  constructor(
    readonly writer: Writer,
    readonly readers: SqliteThread[],
    readonly pointReads: PointReads,
    readonly pointConnection: BetterSqlite3.Database,
  ) {}

  leastBusyReader(): SqliteThread {
    let best = this.readers[0]!;
    for (const reader of this.readers) if (reader.pending < best.pending) best = reader;
    return best;
  }

  use(): ThreadedPoolUse {
    const busyReaders = this.readers.filter((reader) => reader.pending > 0).length;
    const queuedOnReaders = this.readers.reduce((sum, reader) => sum + Math.max(0, reader.pending - 1), 0);
    const writerQueue = this.writer.lock.queued;
    return {
      total: this.readers.length + 1,
      idle: this.readers.length - busyReaders + (writerQueue === 0 ? 1 : 0),
      waiting: queuedOnReaders + Math.max(0, writerQueue - 1),
    };
  }

  async close(): Promise<void> {
    await Promise.all(this.readers.map((reader) => reader.close()));
    this.pointConnection.close();
    this.writer.db.close();
  }
}

/**
 * What Kysely sees as one connection. A read goes to the point-read connection when SQLite's plan
 * says it touches a bounded number of rows, else to the least busy reader thread; the first
 * statement that writes (or `begin`) takes the writer, and every later statement of this
 * connection stays there until it is released, so a transaction (or a write followed by a read)
 * sees its own changes.
 */
class RoutedConnection implements DatabaseConnection {
  readonly #pool: Pool;
  #releaseWriter: (() => void) | null = null;
  /** A transaction begun inside the same flow's open transaction: it is a savepoint of that one. */
  #savepoint: string | null = null;
  /** Inside a transaction begun through the driver (what joining statements look for). */
  inTransaction = false;

  constructor(pool: Pool) {
    this.#pool = pool;
  }

  get holdsWriter(): boolean {
    return this.#releaseWriter !== null;
  }

  /** The open transaction of this async flow on another connection, if any. */
  sharedTransaction(): RoutedConnection | null {
    const owner = flowTransaction();
    return owner !== this ? owner : null;
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const { sql, parameters } = query;
    if (this.#releaseWriter || this.#savepoint || this.sharedTransaction())
      return this.#pool.writer.run<R>(sql, parameters);
    if (READ_STATEMENT.test(sql)) {
      const rows = this.#pool.pointReads.tryRun(sql, parameters);
      if (rows) return { rows: rows as R[] };
      const result = await this.#pool.leastBusyReader().run(sql, parameters);
      if (!result.notReadonly) return { rows: result.rows as R[] };
    }
    await this.holdWriter();
    return this.#pool.writer.run<R>(sql, parameters);
  }

  async *streamQuery<R>(query: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    yield await this.executeQuery<R>(query);
  }

  async holdWriter(): Promise<void> {
    if (!this.#releaseWriter) this.#releaseWriter = await this.#pool.writer.lock.acquire();
  }

  async begin(): Promise<void> {
    const outer = this.sharedTransaction();
    if (outer) {
      // Not `begin` (SQLite has no nested transactions) and not a wait for the writer (held by
      // this very flow): a savepoint inside the outer transaction.
      this.#savepoint = `citadel_nested_${nextSavepoint++}`;
      this.#pool.writer.control(`savepoint ${this.#savepoint}`);
      return;
    }
    // Before the first await: the flow that called beginTransaction carries this connection on.
    transactionOwner.enterWith(this);
    await this.holdWriter();
    this.#pool.writer.control('begin');
    this.inTransaction = true;
  }

  async end(outcome: 'commit' | 'rollback'): Promise<void> {
    const writer = this.#pool.writer;
    if (this.#savepoint) {
      const name = this.#savepoint;
      this.#savepoint = null;
      if (outcome === 'rollback') writer.control(`rollback to ${name}`);
      writer.control(`release ${name}`);
      return;
    }
    this.inTransaction = false;
    writer.control(outcome);
  }

  async release(): Promise<void> {
    const release = this.#releaseWriter;
    if (!release) return;
    this.#releaseWriter = null;
    this.inTransaction = false;
    try {
      // A raw `begin` left open must not leak into the next holder's statements.
      if (this.#pool.writer.db.inTransaction) this.#pool.writer.control('rollback');
    } finally {
      release();
    }
  }
}

let nextSavepoint = 1;

function quoteName(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/**
 * SQLite off the event loop where it matters: the main thread keeps the one writer connection
 * (writes and transactions) and a read-only connection for point reads (decided from the query
 * plan); every other read (list, search, count) runs on one of N reader threads over WAL. A slow
 * list occupies a reader thread, never the event loop, so sign-ins, session checks and health
 * probes keep running.
 */
class ThreadedSqliteDriver implements Driver {
  readonly #options: ThreadedSqliteOptions;
  #pool: Pool | null = null;

  constructor(options: ThreadedSqliteOptions) {
    this.#options = options;
  }

  get pool(): Pool | null {
    return this.#pool;
  }

  async init(): Promise<void> {
    const { default: SQLite } = await importOptional(
      'better-sqlite3',
      'A sqlite: DATABASE_URL',
      () => import('better-sqlite3'),
    );
    // The writer first: it creates the file and switches it to WAL, which the readers rely on.
    const writer = new SQLite(this.#options.file);
    writer.pragma('journal_mode = WAL');
    writer.pragma('foreign_keys = ON');
    writer.pragma('busy_timeout = 5000');
    registerSqliteFunctions(writer);
    const readers = await Promise.all(
      Array.from({ length: Math.max(1, this.#options.readers ?? 2) }, () =>
        SqliteThread.start(this.#options.file),
      ),
    );
    const pointConnection = new SQLite(this.#options.file, { readonly: true });
    pointConnection.pragma('busy_timeout = 5000');
    registerSqliteFunctions(pointConnection);
    this.#pool = new Pool(
      new Writer(writer, this.#options.onDirectStatement),
      readers,
      new PointReads(pointConnection),
      pointConnection,
    );
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    return new RoutedConnection(this.#pool!);
  }

  /**
   * A point read answered at once, on the main thread's read-only connection: the rows, with no
   * connection, promise or worker round trip; undefined when the statement is not one (SQLite's
   * plan decides, as for any read), when this flow has a transaction open (its writes are only on
   * the writer), or before the first statement has opened the database.
   */
  readNow(query: CompiledQuery): Record<string, unknown>[] | undefined {
    const pool = this.#pool;
    if (!pool || !READ_STATEMENT.test(query.sql) || flowTransaction()) return undefined;
    const rows = pool.pointReads.tryRun(query.sql, query.parameters);
    if (rows) this.#options.onDirectStatement?.(query.sql);
    return rows;
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as RoutedConnection).begin();
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as RoutedConnection).end('commit');
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as RoutedConnection).end('rollback');
  }

  async savepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`savepoint ${quoteName(name)}`));
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`rollback to ${quoteName(name)}`));
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`release ${quoteName(name)}`));
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    await (connection as RoutedConnection).release();
  }

  async destroy(): Promise<void> {
    await this.#pool?.close();
    this.#pool = null;
  }
}

/** A Kysely dialect for a SQLite file: one writer on the main thread, reads on worker threads. */
export class ThreadedSqliteDialect implements Dialect {
  readonly #options: ThreadedSqliteOptions;
  #driver: ThreadedSqliteDriver | null = null;

  constructor(options: ThreadedSqliteOptions) {
    this.#options = options;
  }

  createDriver(): Driver {
    this.#driver = new ThreadedSqliteDriver(this.#options);
    return this.#driver;
  }

  /** See `ThreadedSqliteDriver.readNow`. */
  readNow(query: CompiledQuery): Record<string, unknown>[] | undefined {
    return this.#driver?.readNow(query);
  }

  /** Before the first statement (the driver starts lazily): the writer and readers as they will be. */
  poolUse(): ThreadedPoolUse {
    return this.#driver?.pool?.use() ?? { total: 1 + (this.#options.readers ?? 2), idle: 0, waiting: 0 };
  }

  createQueryCompiler(): QueryCompiler {
    return new SqliteQueryCompiler();
  }

  createAdapter(): DialectAdapter {
    return new SqliteAdapter();
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's own signature
  createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return new SqliteIntrospector(db);
  }
}
