import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import type { Clock } from '../../core/clock.ts';

export type SessionData = Record<string, unknown>;

export interface StoredSession {
  userId: number | null;
  data: SessionData;
  expiresAt: string;
}

/**
 * Server-side session storage, keyed by the SHA-256 of the cookie value. Writes never "update, else
 * insert": a session deleted while a request on it was in flight (sign-out, reset, revoke) must stay
 * deleted (contract 13), so an existing session is only updated and a new id only inserted.
 */
export interface SessionStore {
  load(idHash: string): Promise<StoredSession | null>;
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
}

export class DatabaseSessionStore implements SessionStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
  ) {}

  async atomically<T>(work: (store: SessionStore, db: Kysely<Database> | null) => Promise<T>): Promise<T> {
    return this.db.transaction().execute((trx) => work(new DatabaseSessionStore(trx, this.clock), trx));
  }

  async load(idHash: string): Promise<StoredSession | null> {
    const row = await this.db
      .selectFrom('sessions')
      .select(['user_id', 'data', 'expires_at'])
      .where('id', '=', idHash)
      .executeTakeFirst();
    if (!row) return null;
    if (row.expires_at <= this.clock.now().toISOString()) {
      await this.destroy(idHash);
      return null;
    }
    return { userId: row.user_id, data: JSON.parse(row.data) as SessionData, expiresAt: row.expires_at };
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
