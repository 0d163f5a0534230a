import { retryOnDeadlock } from '../../db/retry.ts';
import type { Kysely } from 'kysely';
import { once, withParameters } from '../../db/compiled.ts';
import { readNow } from '../../db/read-now.ts';
import type { Database } from '../../db/schema.ts';
import type { Clock } from '../../core/clock.ts';
import type { Dialect } from '../../db/url.ts';
import type { UserRecord } from '../security/caller.ts';

export type SessionData = Record<string, unknown>;

/**
 * A row that belongs to this request's session change (a sign-in's `sign_in` event, a sign-out's
 * `sign_out`): it is inserted with the session write, in one commit, or not at all. `afterCommit`
 * runs once both are stored (a notification mail, say).
 */
export interface SessionCompanion {
  table: keyof Database & string;
  values: Record<string, unknown>;
  afterCommit?: () => void;
}

/** Insert the companions' rows on `db` (a transaction of the session write, or the database). */
export async function insertCompanions(db: Kysely<Database>, companions: readonly SessionCompanion[]) {
  for (const { table, values } of companions)
    await db
      .insertInto(table)
      .values(values as never)
      .execute();
}

export interface StoredSession {
  userId: number | null;
  data: SessionData;
  expiresAt: string;
}

/** A loaded session; a store that can join the user row in the same read returns it too. */
export interface LoadedSession extends StoredSession {
  user?: UserRecord | null;
}

/**
 * Server-side session storage, keyed by the SHA-256 of the cookie value. Writes never "update, else
 * insert": a session deleted while a request on it was in flight (sign-out, reset, revoke) must stay
 * deleted, so an existing session is only updated and a new id only inserted.
 */
export interface SessionStore {
  load(idHash: string): Promise<LoadedSession | null>;
  /** Store a session under a new id (never replaces one). */
  insert(idHash: string, session: StoredSession): Promise<void>;
  /** Update a stored session; false (and nothing written) when it no longer exists. */
  update(idHash: string, session: StoredSession): Promise<boolean>;
  /** Remove a session; true when it existed. */
  destroy(idHash: string): Promise<boolean>;
  /** Ends every session of a user (password reset, password change), optionally sparing one. */
  destroyForUser(userId: number, exceptIdHash?: string): Promise<void>;
  /** The live sessions of a user, for the account center's list of devices. */
  listForUser(userId: number): Promise<(StoredSession & { idHash: string })[]>;
  /**
   * Run `work` with a store whose writes commit together with the database writes made through
   * `db` (one transaction). A store outside the database (Redis) passes itself and null: it cannot
   * share a transaction, and the caller writes its rows after the session write instead.
   */
  atomically<T>(work: (store: SessionStore, db: Kysely<Database> | null) => Promise<T>): Promise<T>;
  /** Whether `insertWithCompanions` can store a new session and its rows in one statement here. */
  canInsertWithCompanions?(): boolean;
  insertWithCompanions?(
    idHash: string,
    session: StoredSession,
    companions: readonly SessionCompanion[],
    /** The session this one replaces (sign-in, sign-out): deleted in the same statement. */
    replaces?: string | null,
  ): Promise<void>;
}

export class DatabaseSessionStore implements SessionStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    /** PostgreSQL writes a new session and its companion rows in one statement (`insertWithCompanions`). */
    private readonly dialect: Dialect = 'sqlite',
  ) {}

  async atomically<T>(work: (store: SessionStore, db: Kysely<Database> | null) => Promise<T>): Promise<T> {
    // A sign-in racing another writer of the same user (an account deletion) may be InnoDB's
    // deadlock victim: undone whole, so it runs again (and then meets the deletion's outcome).
    return retryOnDeadlock(() =>
      this.db
        .transaction()
        .execute((trx) => work(new DatabaseSessionStore(trx, this.clock, this.dialect), trx)),
    );
  }

  /**
   * PostgreSQL: a new session, the removal of the one it replaces and its companion rows in ONE
   * statement (a data-modifying WITH: they commit together), where a transaction would cost BEGIN
   * and COMMIT besides. Other dialects have no such statement: the caller uses `atomically`.
   */
  async insertWithCompanions(
    idHash: string,
    session: StoredSession,
    companions: readonly SessionCompanion[],
    replaces: string | null = null,
  ): Promise<void> {
    if (this.dialect !== 'postgres') throw new Error('insertWithCompanions: PostgreSQL only');
    let query = this.db as unknown as Kysely<Database>;
    companions.forEach(({ table, values }, i) => {
      query = query.with(`companion_${i}`, (db) => db.insertInto(table).values(values as never)) as never;
    });
    if (replaces !== null)
      query = query.with('replaced', (db) => db.deleteFrom('sessions').where('id', '=', replaces)) as never;
    await query
      .insertInto('sessions')
      .values({ id: idHash, ...this.values(session) })
      .execute();
  }

  canInsertWithCompanions(): boolean {
    return this.dialect === 'postgres' && !this.db.isTransaction;
  }

  /**
   * The session and its user in one statement: a signed-in request needs both. Compiled once (its
   * only parameter is the id): building the query per request was a tenth of GET /me's time.
   */
  private loadQuery = once(() =>
    this.db
      .selectFrom('sessions')
      .leftJoin('users', 'users.id', 'sessions.user_id')
      .selectAll('users')
      .select([
        'sessions.user_id as session_user_id',
        'sessions.data as session_data',
        'sessions.expires_at as session_expires_at',
      ])
      .where('sessions.id', '=', '')
      .compile(),
  );

  async load(idHash: string): Promise<LoadedSession | null> {
    const query = withParameters(this.loadQuery(), [idHash]);
    // SQLite answers it at once on the main thread (a read by key), with no connection of its own.
    const [row] = readNow(this.db, query) ?? (await this.db.executeQuery(query)).rows;
    if (!row) return null;
    const { session_user_id, session_data, session_expires_at, ...user } = row;
    if (session_expires_at <= this.clock.now().toISOString()) {
      await this.destroy(idHash);
      return null;
    }
    return {
      userId: session_user_id,
      data: JSON.parse(session_data) as SessionData,
      expiresAt: session_expires_at,
      // A left join: no user (anonymous session, or the user is gone) leaves every column null.
      user: user.id === null || user.id === undefined ? null : (user as UserRecord),
    };
  }

  private values(session: StoredSession) {
    return {
      user_id: session.userId,
      data: JSON.stringify(session.data),
      expires_at: session.expiresAt,
      updated_at: this.clock.now().toISOString(),
    };
  }

  async insert(idHash: string, session: StoredSession): Promise<void> {
    await this.db
      .insertInto('sessions')
      .values({ id: idHash, ...this.values(session) })
      .execute();
    // Opportunistic cleanup of expired rows, about once per 200 new sessions.
    if (Math.random() < 0.005) {
      await this.db
        .deleteFrom('sessions')
        .where('expires_at', '<=', this.clock.now().toISOString())
        .execute();
    }
  }

  async update(idHash: string, session: StoredSession): Promise<boolean> {
    const updated = await this.db
      .updateTable('sessions')
      .set(this.values(session))
      .where('id', '=', idHash)
      .executeTakeFirst();
    return Number(updated.numUpdatedRows) > 0;
  }

  async destroy(idHash: string): Promise<boolean> {
    const deleted = await this.db.deleteFrom('sessions').where('id', '=', idHash).executeTakeFirst();
    return Number(deleted.numDeletedRows) > 0;
  }

  async destroyForUser(userId: number, exceptIdHash?: string): Promise<void> {
    let query = this.db.deleteFrom('sessions').where('user_id', '=', userId);
    if (exceptIdHash) query = query.where('id', '!=', exceptIdHash);
    await query.execute();
  }

  async listForUser(userId: number): Promise<(StoredSession & { idHash: string })[]> {
    const rows = await this.db
      .selectFrom('sessions')
      .select(['id', 'data', 'expires_at'])
      .where('user_id', '=', userId)
      .where('expires_at', '>', this.clock.now().toISOString())
      .execute();
    return rows.map((row) => ({
      idHash: row.id,
      userId,
      data: JSON.parse(row.data) as SessionData,
      expiresAt: row.expires_at,
    }));
  }
}
