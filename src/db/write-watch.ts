import type {
  CompiledQuery,
  DatabaseConnection,
  Dialect,
  Driver,
  Kysely,
  OperationNode,
  QueryResult,
  TransactionSettings,
} from 'kysely';

/**
 * A counter that moves whenever this process may have changed a watched table: before a statement
 * that writes one runs, after it returns, and after the commit or rollback of a transaction that
 * wrote one. A value read from the database and stamped with the counter is still what the
 * database holds, as far as this process can tell, while the counter has not moved. Caches keyed
 * on it (the session cache) are exact within the process; other processes' writes are not seen.
 */
export class WriteGeneration {
  #value = 0;

  constructor(readonly tables: ReadonlySet<string>) {}

  get value(): number {
    return this.#value;
  }

  bump(): void {
    this.#value++;
  }
}

// Keyed by the Kysely instances `openDatabase` makes, like `registerDirectReads`.
const generations = new WeakMap<object, WriteGeneration>();

export function registerWriteGeneration(db: object, generation: WriteGeneration): void {
  generations.set(db, generation);
}

/**
 * The write counter of `db` as `openDatabase` opened it, or undefined: a Kysely instance made
 * elsewhere, or derived from it (a transaction, `withPlugin`), has none, and nothing may be cached
 * on it.
 */
export function writeGeneration(db: Kysely<never> | object): WriteGeneration | undefined {
  return generations.get(db);
}

/** Statements that change no table (reads and transaction control). */
const READ_ONLY_TEXT = /^\s*(select|pragma|explain|show|begin|start transaction|savepoint|release)\b/i;

function tableName(node: OperationNode | undefined): string | undefined {
  if (!node) return undefined;
  const table = node.kind === 'AliasNode' ? (node as unknown as { node: OperationNode }).node : node;
  if (table.kind !== 'TableNode') return undefined;
  return (table as unknown as { table: { identifier: { name: string } } }).table.identifier.name;
}

/** The tables `query` writes, [] for a read, or null when it cannot tell (then assume any). */
function writtenTables(query: CompiledQuery): string[] | null {
  const node = query.query as OperationNode & Record<string, unknown>;
  switch (node.kind) {
    case 'SelectQueryNode':
      return [];
    case 'RawNode':
      return READ_ONLY_TEXT.test(query.sql) ? [] : null;
    case 'InsertQueryNode':
    case 'UpdateQueryNode':
    case 'DeleteQueryNode': {
      // A data-modifying WITH may write anything.
      if (node.with) return null;
      const target =
        node.kind === 'InsertQueryNode'
          ? (node.into as OperationNode)
          : node.kind === 'UpdateQueryNode'
            ? (node.table as OperationNode)
            : (node.from as { froms: readonly OperationNode[] }).froms.length === 1
              ? (node.from as { froms: readonly OperationNode[] }).froms[0]
              : undefined;
      const name = tableName(target);
      return name === undefined ? null : [name];
    }
    default:
      // Schema changes, MERGE, anything new: assume it writes every table.
      return null;
  }
}

function writesWatched(generation: WriteGeneration, query: CompiledQuery): boolean {
  const tables = writtenTables(query);
  return tables === null || tables.some((table) => generation.tables.has(table));
}

/** A connection that moves the counter around the statements writing a watched table. */
class WatchedConnection implements DatabaseConnection {
  /** A watched table was written in the open transaction: its end moves the counter again. */
  wroteWatched = false;

  constructor(
    readonly inner: DatabaseConnection,
    private readonly generation: WriteGeneration,
  ) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (!writesWatched(this.generation, query)) return this.inner.executeQuery<R>(query);
    this.wroteWatched = true;
    this.generation.bump();
    try {
      return await this.inner.executeQuery<R>(query);
    } finally {
      this.generation.bump();
    }
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    if (writesWatched(this.generation, query)) this.generation.bump();
    return this.inner.streamQuery<R>(query, chunkSize);
  }
}

const inner = (connection: DatabaseConnection) =>
  connection instanceof WatchedConnection ? connection.inner : connection;

class WatchedDriver implements Driver {
  savepoint?: Driver['savepoint'];
  rollbackToSavepoint?: Driver['rollbackToSavepoint'];
  releaseSavepoint?: Driver['releaseSavepoint'];

  constructor(
    private readonly driver: Driver,
    private readonly generation: WriteGeneration,
  ) {
    // Kysely offers savepoints only when the driver has them: keep the wrapped driver's answer.
    if (driver.savepoint)
      this.savepoint = (connection, name, compile) => driver.savepoint!(inner(connection), name, compile);
    if (driver.rollbackToSavepoint)
      this.rollbackToSavepoint = async (connection, name, compile) => {
        try {
          await driver.rollbackToSavepoint!(inner(connection), name, compile);
        } finally {
          this.ended(connection, false);
        }
      };
    if (driver.releaseSavepoint)
      this.releaseSavepoint = (connection, name, compile) =>
        driver.releaseSavepoint!(inner(connection), name, compile);
  }

  init(): Promise<void> {
    return this.driver.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    return new WatchedConnection(await this.driver.acquireConnection(), this.generation);
  }

  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return this.driver.beginTransaction(inner(connection), settings);
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await this.driver.commitTransaction(inner(connection));
    } finally {
      this.ended(connection, true);
    }
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await this.driver.rollbackTransaction(inner(connection));
    } finally {
      this.ended(connection, true);
    }
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.driver.releaseConnection(inner(connection));
  }

  destroy(): Promise<void> {
    return this.driver.destroy();
  }

  /** A transaction (or a savepoint's rollback) ended: what it wrote became visible, or went back. */
  private ended(connection: DatabaseConnection, transactionOver: boolean): void {
    if (!(connection instanceof WatchedConnection) || !connection.wroteWatched) return;
    this.generation.bump();
    if (transactionOver) connection.wroteWatched = false;
  }
}

/** `dialect` with a driver that moves `generation` around the writes to its watched tables. */
export function watchWrites(dialect: Dialect, generation: WriteGeneration): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createDriver: () => new WatchedDriver(dialect.createDriver(), generation),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createQueryCompiler: () => dialect.createQueryCompiler(),
  };
}
