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
import { PointReads } from './point-reads.ts';
import { SqliteThread, type ThreadResult } from './thread.ts';

export interface ThreadedSqliteOptions {
  file: string;
  /** Reader threads (each one connection). Default 2: one per core of a small machine. */
  readers?: number;
}

/** A statement that can only read, by its first keyword: the readers may take it. */
const READ_STATEMENT = /^\s*(?:select|with)\b/i;

/** First come, first served: the writer thread belongs to one Kysely connection at a time. */
class WriterLock {
  #tail: Promise<void> = Promise.resolve();

  async acquire(): Promise<() => void> {
    let release!: () => void;
    const previous = this.#tail;
    this.#tail = new Promise<void>((resolve) => (release = resolve));
    await previous;
    return release;
  }
}

function quoteName(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

function toQueryResult<R>(result: ThreadResult): QueryResult<R> {
  if (result.changes === undefined) return { rows: result.rows as R[] };
  return {
    rows: result.rows as R[],
    numAffectedRows: BigInt(result.changes),
    insertId: result.lastInsertRowid === undefined ? undefined : BigInt(result.lastInsertRowid),
  };
}

/**
 * What Kysely sees as one connection. Reads go to the point-read path or the least busy reader
 * thread; the first statement that writes (or `begin`) takes the writer thread, and every later
 * statement of this connection stays there until it is released, so a transaction (or a write
 * followed by a read) sees its own changes.
 */
class RoutedConnection implements DatabaseConnection {
  readonly #pool: ThreadPool;
  #releaseWriter: (() => void) | null = null;

  constructor(pool: ThreadPool) {
    this.#pool = pool;
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const { sql, parameters } = query;
    if (!this.#releaseWriter && READ_STATEMENT.test(sql)) {
      const rows = this.#pool.pointReads?.tryRun(sql, parameters);
      if (rows) return { rows: rows as R[] };
      const result = await this.#pool.leastBusyReader().run(sql, parameters);
      if (!result.notReadonly) return toQueryResult(result);
    }
    await this.holdWriter();
    return toQueryResult(await this.#pool.writer.run(sql, parameters));
  }

  async *streamQuery<R>(query: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    const result = await this.executeQuery<R>(query);
    yield result;
  }

  async holdWriter(): Promise<void> {
    if (!this.#releaseWriter) this.#releaseWriter = await this.#pool.writerLock.acquire();
  }

  async release(): Promise<void> {
    const release = this.#releaseWriter;
    if (!release) return;
    this.#releaseWriter = null;
    try {
      // A raw `begin` left open must not leak into the next holder's statements.
      if (this.#pool.writer.inTransaction) await this.#pool.writer.run('rollback', []);
    } finally {
      release();
    }
  }
}

class ThreadPool {
  constructor(
    readonly writer: SqliteThread,
    readonly readers: SqliteThread[],
    readonly pointReads: PointReads | null,
    readonly mainConnection: BetterSqlite3.Database | null,
  ) {}
  readonly writerLock = new WriterLock();

  leastBusyReader(): SqliteThread {
    let best = this.readers[0]!;
    for (const reader of this.readers) if (reader.pending < best.pending) best = reader;
    return best;
  }

  async close(): Promise<void> {
    await Promise.all([this.writer.close(), ...this.readers.map((reader) => reader.close())]);
    this.mainConnection?.close();
  }
}

/**
 * SQLite off the event loop: one writer thread and N reader threads over WAL, plus cheap point
 * reads (decided from the query plan) on the main thread. A slow list, search or count occupies a
 * reader thread, never the event loop, so sign-ins, session checks and health probes keep running.
 */
class ThreadedSqliteDriver implements Driver {
  readonly #options: ThreadedSqliteOptions;
  #pool: ThreadPool | null = null;

  constructor(options: ThreadedSqliteOptions) {
    this.#options = options;
  }

  async init(): Promise<void> {
    // The writer first: it creates the file and switches it to WAL, which the readers rely on.
    const writer = await SqliteThread.start(this.#options.file, 'writer');
    const readers = await Promise.all(
      Array.from({ length: Math.max(1, this.#options.readers ?? 2) }, () =>
        SqliteThread.start(this.#options.file, 'reader'),
      ),
    );
    const { default: SQLite } = await import('better-sqlite3');
    const main = new SQLite(this.#options.file, { readonly: true });
    main.pragma('busy_timeout = 5000');
    this.#pool = new ThreadPool(writer, readers, new PointReads(main), main);
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    return new RoutedConnection(this.#pool!);
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as RoutedConnection).holdWriter();
    await connection.executeQuery(CompiledQuery.raw('begin'));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
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

/** A Kysely dialect for a SQLite file served by worker threads (`:memory:` cannot be shared by threads). */
export class ThreadedSqliteDialect implements Dialect {
  readonly #options: ThreadedSqliteOptions;

  constructor(options: ThreadedSqliteOptions) {
    this.#options = options;
  }

  createDriver(): Driver {
    return new ThreadedSqliteDriver(this.#options);
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
