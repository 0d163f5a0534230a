import type { PostgresCursor, PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import { randomBytes } from 'node:crypto';
import type pg from 'pg';

/** A statement's SQL text must be seen this often on a connection before it is given a name. */
export const NAME_AFTER_USES = 3;
/** Each named statement holds its parse tree and plans in the server process of the connection. */
export const MAX_NAMES_PER_CONNECTION = 100;
/** Texts counted but not yet named, per connection; the count starts over when it is full. */
const MAX_COUNTED_TEXTS = 500;
/** Longer texts (multi-row inserts) cost far more to run than to parse, and vary in length. */
const MAX_NAMED_TEXT_LENGTH = 4000;
/** Statements whose plan is worth keeping; BEGIN, SET, DDL and the like are sent unnamed. */
const NAMEABLE = /^\s*(?:select|insert|update|delete|with)\b/i;
/** 0A000: "cached plan must not change result type" (a table changed under `SELECT *`). */
const RESULT_TYPE_CHANGED = '0A000';
/** 26000: the server no longer has the statement (`DISCARD ALL`, a pooler between us and it). */
const STATEMENT_GONE = '26000';

type Client = pg.PoolClient;
type Result = PostgresQueryResult<unknown>;

/**
 * Kysely's pg driver sends every statement unnamed, which PostgreSQL parses and plans each time.
 * This pool gives a statement a name once its text was seen a few times on a connection, so the
 * server parses it once per connection and pg sends Bind/Execute only; at most
 * `MAX_NAMES_PER_CONNECTION` names per connection, anything beyond runs unnamed.
 * The pool itself (size, timeouts, error listeners, counters) is the caller's, unchanged.
 */
export function withNamedStatements(pool: pg.Pool): PostgresPool {
  // One wrapper per pg client, so its names live exactly as long as its server connection, and
  // Kysely (which keys its connections by the client object) sees the same client every time.
  const wrapped = new WeakMap<Client, NamingClient>();
  return {
    async connect() {
      const client = await pool.connect();
      let naming = wrapped.get(client);
      if (!naming) {
        naming = new NamingClient(client);
        wrapped.set(client, naming);
      }
      return naming;
    },
    end: () => pool.end(),
  };
}

/** One pooled connection with the names of its prepared statements. */
class NamingClient implements PostgresPoolClient {
  readonly #client: Client;
  /** SQL text to the name it was prepared under on this connection. */
  readonly #names = new Map<string, string>();
  readonly #uses = new Map<string, number>();
  /** Names whose plan went stale, still held by the server until DEALLOCATE (outside a transaction). */
  #stale: string[] = [];
  #lastName = 0;
  /**
   * Unique to this connection: behind a pooler that moves sessions between server connections, a
   * name then never finds another client's statement there (it fails with 26000 instead, which is
   * retried unnamed), so a Bind can never run someone else's SQL.
   */
  readonly #prefix = `citadel_${randomBytes(6).toString('hex')}_`;

  constructor(client: Client) {
    this.#client = client;
  }

  query<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>>;
  query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>;
  query<R>(
    statement: string | PostgresCursor<R>,
    parameters?: ReadonlyArray<unknown>,
  ): Promise<PostgresQueryResult<R>> | PostgresCursor<R> {
    // Kysely's streaming passes a cursor object: pg runs it as it is.
    if (typeof statement !== 'string') return this.#client.query(statement as never) as PostgresCursor<R>;
    return this.#run(statement, parameters ?? []) as Promise<PostgresQueryResult<R>>;
  }

  release(): void {
    this.#client.release();
  }

  async #run(text: string, parameters: ReadonlyArray<unknown>): Promise<Result> {
    const values = parameters as unknown[]; // a copy already (Kysely's driver spreads them)
    if (this.#stale.length > 0 && this.#idle()) await this.#deallocateStale();
    const name = this.#nameFor(text);
    if (name === undefined) return this.#send(text, values);
    try {
      return (await this.#client.query({ name, text, values })) as unknown as Result;
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (code !== RESULT_TYPE_CHANGED && code !== STATEMENT_GONE) throw error;
      // The server refused before running anything. A new name is prepared after a few more uses.
      this.#names.delete(text);
      if (code === RESULT_TYPE_CHANGED) this.#stale.push(name);
      // Inside a transaction the error has aborted it: only the caller can begin it again. (pg may
      // not have read the ReadyForQuery after the error yet; the status before it answers the same.)
      if (!this.#idle()) throw error;
      await this.#deallocateStale();
      return this.#send(text, values);
    }
  }

  /** This text's name on this connection, a new one once it is used often enough, or none. */
  #nameFor(text: string): string | undefined {
    const known = this.#names.get(text);
    if (known !== undefined) return known;
    if (this.#names.size + this.#stale.length >= MAX_NAMES_PER_CONNECTION) return undefined;
    if (text.length > MAX_NAMED_TEXT_LENGTH || !NAMEABLE.test(text)) return undefined;
    const uses = (this.#uses.get(text) ?? 0) + 1;
    if (uses < NAME_AFTER_USES) {
      if (this.#uses.size >= MAX_COUNTED_TEXTS) this.#uses.clear();
      this.#uses.set(text, uses);
      return undefined;
    }
    this.#uses.delete(text);
    // Never reused on this connection: pg remembers every name it has parsed there.
    const name = `${this.#prefix}${++this.#lastName}`;
    this.#names.set(text, name);
    return name;
  }

  async #send(text: string, values: unknown[]): Promise<Result> {
    return (await this.#client.query(text, values)) as unknown as Result;
  }

  /** Outside any transaction (pg reports the status of the last ReadyForQuery). */
  #idle(): boolean {
    return this.#client.getTransactionStatus() === 'I';
  }

  async #deallocateStale(): Promise<void> {
    const names = this.#stale;
    this.#stale = [];
    for (const name of names) {
      // A failure here only leaves a plan on the server until the connection closes.
      await this.#client.query(`DEALLOCATE ${name}`).catch(() => undefined);
    }
  }
}
