import { retryOnDeadlock } from '../../db/retry.ts';
import { sql, type Kysely } from 'kysely';
import { once, withParameters } from '../../db/compiled.ts';
import { readNow } from '../../db/read-now.ts';
import { writeGeneration } from '../../db/write-watch.ts';
import { RecentRows } from '../../db/recent-rows.ts';
import type { Database } from '../../db/schema.ts';
import type { Clock } from '../../core/clock.ts';
import type { Dialect } from '../../db/url.ts';
import type { UserRecord } from '../security/caller.ts';

/** A session's values by key, as the store keeps them. */
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

/** A stored session as it was when a store removed it. */
export interface EndedSession {
  userId: number | null;
  data: SessionData;
  /** `expired`: its idle time ran out; `ended`: removed (sign-out, revocation, a reset, sign-in over it). */
  cause: 'ended' | 'expired';
  /** What the request that ended its own session said about it (`Session.noteEnd`). */
  note?: SessionEndNote;
}

/** Said by a request about the end of its own session: why, and from where. */
export interface SessionEndNote {
  reason?: string;
  ip: string | null;
  userAgent: string | null;
}

/**
 * Told of a removed session whose data holds `key`, once per session: by the removal that deleted
 * its row (whichever request or sweep that is). The rows it returns are stored with the removal.
 */
export interface SessionEndWatcher {
  key: string;
  ended(session: EndedSession, clock: Clock): readonly SessionCompanion[];
}

/** The watchers of a store, shared by the store and its transaction-bound copies. */
interface EndWatchers {
  list: readonly SessionEndWatcher[];
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
  /**
   * The session at once when the store can read it without waiting (SQLite's read by key on the
   * main thread), else undefined: then `load`. Saves a promise on every signed-in request.
   */
  loadNow?(idHash: string): LoadedSession | null | undefined;
  /** Store a session under a new id (never replaces one). */
  insert(idHash: string, session: StoredSession): Promise<void>;
  /** Update a stored session; false (and nothing written) when it no longer exists. */
  update(idHash: string, session: StoredSession): Promise<boolean>;
  /**
   * Remove a session; true when it existed (this call deleted it). `known`: the session as the
   * caller loaded it, for the end watchers (read from the store otherwise).
   */
  destroy(idHash: string, known?: EndedSession): Promise<boolean>;
  /** Watch the removal of sessions holding a key (set once, at start; rows go to `db`). */
  watchEnds?(watchers: readonly SessionEndWatcher[], db: Kysely<Database>): void;
  /** Whether removing a session with this data involves a watcher (then it is not done in bulk). */
  watches?(data: SessionData): boolean;
  /** Remove the expired sessions now (stores also do it now and then), telling the watchers. */
  destroyExpired?(): Promise<void>;
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

/**
 * A session as requests share it while it is kept in memory: the user row frozen (a change to it
 * throws), the data as stored, parsed anew for each request (which may change it).
 */
interface KeptSession {
  userId: number | null;
  dataText: string;
  expiresAt: string;
  user: UserRecord | null;
}

const loadedOf = (kept: KeptSession): LoadedSession => ({
  userId: kept.userId,
  data: JSON.parse(kept.dataText) as SessionData,
  expiresAt: kept.expiresAt,
  user: kept.user,
});

/** A row of the session-and-user read: the session's columns, and the user's (null without one). */
type LoadRow = { session_user_id: number | null; session_data: string; session_expires_at: string } & Record<
  string,
  unknown
>;

export class DatabaseSessionStore implements SessionStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    /** PostgreSQL writes a new session and its companion rows in one statement (`insertWithCompanions`). */
    private readonly dialect: Dialect = 'sqlite',
    private readonly ends: EndWatchers = { list: [] },
  ) {
    const writes = writeGeneration(db);
    this.cache = writes && new RecentRows<KeptSession>(writes);
  }

  watchEnds(watchers: readonly SessionEndWatcher[]): void {
    this.ends.list = watchers;
  }

  watches(data: SessionData): boolean {
    return this.ends.list.some((watcher) => watcher.key in data);
  }

  /** LIKE patterns matching a stored session whose data holds a watched key (JSON text, no spaces). */
  private watchedPatterns(): string[] {
    return this.ends.list.map(
      (watcher) => `%${JSON.stringify(watcher.key).replace(/[!%_]/g, (c) => `!${c}`)}:%`,
    );
  }

  /**
   * Sessions about to be removed in bulk whose data holds a watched key: removed one by one first,
   * so that each is told to its watchers exactly once.
   */
  private async destroyWatched(
    which: { userId: number; except?: string } | { expiredBy: string },
    cause: EndedSession['cause'],
  ): Promise<void> {
    if (this.ends.list.length === 0) return;
    const patterns = this.watchedPatterns();
    let query = this.selectSessions().where((eb) =>
      eb.or(patterns.map((pattern) => sql<boolean>`${eb.ref('data')} like ${pattern} escape '!'`)),
    );
    if ('expiredBy' in which) query = query.where('expires_at', '<=', which.expiredBy);
    else {
      query = query.where('user_id', '=', which.userId);
      if (which.except) query = query.where('id', '!=', which.except);
    }
    for (const row of await query.execute())
      await this.destroy(row.id, { userId: row.user_id, data: JSON.parse(row.data) as SessionData, cause });
  }

  private selectSessions() {
    return this.db.selectFrom('sessions').select(['id', 'user_id', 'data']);
  }

  async atomically<T>(work: (store: SessionStore, db: Kysely<Database> | null) => Promise<T>): Promise<T> {
    // A sign-in racing another writer of the same user (an account deletion) may be InnoDB's
    // deadlock victim: undone whole, so it runs again (and then meets the deletion's outcome).
    return retryOnDeadlock(() =>
      this.db
        .transaction()
        .execute((trx) => work(new DatabaseSessionStore(trx, this.clock, this.dialect, this.ends), trx)),
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

  /**
   * Sessions read in the last second, while this process wrote no session or user since
   * (recent-rows.ts). Only on a database `openDatabase` opened (it counts the writes), never in a
   * transaction.
   */
  private readonly cache: RecentRows<KeptSession> | undefined;

  /**
   * The session as kept, or read at once (SQLite's point read on the main thread, with no
   * connection of its own); null for none, undefined when it cannot be read without a promise.
   */
  private keptNow(idHash: string): KeptSession | null | undefined {
    const kept = this.cache?.get(idHash);
    if (kept !== undefined) return kept;
    const stamp = this.cache?.stamp();
    const rows = readNow(this.db, withParameters(this.loadQuery(), [idHash]));
    if (!rows) return undefined;
    return rows[0] ? this.keep(idHash, rows[0], stamp) : null;
  }

  loadNow(idHash: string): LoadedSession | null | undefined {
    const kept = this.keptNow(idHash);
    if (!kept) return kept;
    // An expired session is removed (and its watchers told) by `load`.
    return this.expired(kept) ? undefined : loadedOf(kept);
  }

  async load(idHash: string): Promise<LoadedSession | null> {
    let kept = this.keptNow(idHash);
    if (kept === undefined) {
      const stamp = this.cache?.stamp();
      const [row] = (await this.db.executeQuery(withParameters(this.loadQuery(), [idHash]))).rows;
      kept = row ? this.keep(idHash, row, stamp) : null;
    }
    if (!kept) return null;
    const loaded = loadedOf(kept);
    if (!this.expired(kept)) return loaded;
    await this.destroy(idHash, { userId: loaded.userId, data: loaded.data, cause: 'expired' });
    return null;
  }

  private expired(session: KeptSession): boolean {
    return session.expiresAt <= this.clock.now().toISOString();
  }

  /** A row of `loadQuery` as it is kept (when `stamp` is given) and shared by the requests that read it. */
  private keep(idHash: string, row: LoadRow, stamp: number | undefined): KeptSession {
    const { session_user_id, session_data, session_expires_at, ...user } = row;
    const kept: KeptSession = {
      userId: session_user_id,
      dataText: session_data,
      expiresAt: session_expires_at,
      // A left join: no user (anonymous session, or the user is gone) leaves every column null.
      user: user.id === null || user.id === undefined ? null : Object.freeze(user as UserRecord),
    };
    if (stamp !== undefined) this.cache!.set(idHash, kept, stamp);
    return kept;
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
    if (Math.random() < 0.005) await this.destroyExpired();
  }

  /** Remove the expired sessions (those watched one by one, each told once). */
  async destroyExpired(): Promise<void> {
    const now = this.clock.now().toISOString();
    await this.destroyWatched({ expiredBy: now }, 'expired');
    await this.db.deleteFrom('sessions').where('expires_at', '<=', now).execute();
  }

  async update(idHash: string, session: StoredSession): Promise<boolean> {
    const updated = await this.db
      .updateTable('sessions')
      .set(this.values(session))
      .where('id', '=', idHash)
      .executeTakeFirst();
    return Number(updated.numUpdatedRows) > 0;
  }

  async destroy(idHash: string, known?: EndedSession): Promise<boolean> {
    let ended = known;
    if (!ended && this.ends.list.length > 0) {
      const row = await this.selectSessions().where('id', '=', idHash).executeTakeFirst();
      if (!row) return false;
      ended = { userId: row.user_id, data: JSON.parse(row.data) as SessionData, cause: 'ended' };
    }
    if (!ended || !this.watches(ended.data)) return this.deleteRow(this.db, idHash);
    const told = ended;
    // The deletion decides who tells the watchers: only the request whose DELETE removed the row.
    const work = async (db: Kysely<Database>) => {
      if (!(await this.deleteRow(db, idHash))) return false;
      const companions = this.ends.list.flatMap((watcher) =>
        watcher.key in told.data ? watcher.ended(told, this.clock) : [],
      );
      await insertCompanions(db, companions);
      return true;
    };
    return this.db.isTransaction ? work(this.db) : this.db.transaction().execute(work);
  }

  private async deleteRow(db: Kysely<Database>, idHash: string): Promise<boolean> {
    const deleted = await db.deleteFrom('sessions').where('id', '=', idHash).executeTakeFirst();
    return Number(deleted.numDeletedRows) > 0;
  }

  async destroyForUser(userId: number, exceptIdHash?: string): Promise<void> {
    await this.destroyWatched({ userId, except: exceptIdHash }, 'ended');
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
