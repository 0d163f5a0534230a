import type { Kysely } from 'kysely';
import type { Redis } from 'ioredis';
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
}

export class DatabaseSessionStore implements SessionStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
  ) {}

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

/** Sessions in Redis: one key per session with a TTL, and a set per user to end all of a user's sessions. */
export class RedisSessionStore implements SessionStore {
  constructor(
    private readonly redis: Redis,
    private readonly clock: Clock,
    private readonly prefix = 'citadel:',
  ) {}

  private key(idHash: string): string {
    return `${this.prefix}session:${idHash}`;
  }

  private userKey(userId: number): string {
    return `${this.prefix}user-sessions:${userId}`;
  }

  async load(idHash: string): Promise<StoredSession | null> {
    const raw = await this.redis.get(this.key(idHash));
    if (!raw) return null;
    const stored = JSON.parse(raw) as StoredSession;
    if (stored.expiresAt <= this.clock.now().toISOString()) {
      await this.destroy(idHash);
      return null;
    }
    return stored;
  }

  /** SET with NX (insert) or XX (update): Redis decides atomically whether the key exists. */
  private async write(idHash: string, session: StoredSession, mode: 'NX' | 'XX'): Promise<boolean> {
    const ttlMs = Math.max(1000, new Date(session.expiresAt).getTime() - this.clock.now().getTime());
    const value = JSON.stringify(session);
    const key = this.key(idHash);
    const written =
      mode === 'NX'
        ? await this.redis.set(key, value, 'PX', ttlMs, 'NX')
        : await this.redis.set(key, value, 'PX', ttlMs, 'XX');
    if (written !== 'OK') return false;
    if (session.userId !== null) {
      await this.redis
        .multi()
        .sadd(this.userKey(session.userId), idHash)
        .pexpire(this.userKey(session.userId), ttlMs * 2)
        .exec();
    }
    return true;
  }

  async insert(idHash: string, session: StoredSession): Promise<void> {
    if (!(await this.write(idHash, session, 'NX'))) throw new Error('session id collision');
  }

  async update(idHash: string, session: StoredSession): Promise<boolean> {
    return this.write(idHash, session, 'XX');
  }

  async destroy(idHash: string): Promise<boolean> {
    const raw = await this.redis.get(this.key(idHash));
    const multi = this.redis.multi().del(this.key(idHash));
    if (raw) {
      const { userId } = JSON.parse(raw) as StoredSession;
      if (userId !== null) multi.srem(this.userKey(userId), idHash);
    }
    const results = (await multi.exec()) ?? [];
    return Number(results[0]?.[1] ?? 0) > 0;
  }

  async destroyForUser(userId: number, exceptIdHash?: string): Promise<void> {
    const ids = await this.redis.smembers(this.userKey(userId));
    const doomed = ids.filter((id) => id !== exceptIdHash);
    if (doomed.length === 0) return;
    await this.redis
      .multi()
      .del(...doomed.map((id) => this.key(id)))
      .srem(this.userKey(userId), ...doomed)
      .exec();
  }

  async listForUser(userId: number): Promise<(StoredSession & { idHash: string })[]> {
    const ids = await this.redis.smembers(this.userKey(userId));
    if (ids.length === 0) return [];
    const values = await this.redis.mget(...ids.map((id) => this.key(id)));
    const now = this.clock.now().toISOString();
    const out: (StoredSession & { idHash: string })[] = [];
    ids.forEach((idHash, i) => {
      const raw = values[i];
      if (!raw) return;
      const stored = JSON.parse(raw) as StoredSession;
      if (stored.userId === userId && stored.expiresAt > now) out.push({ ...stored, idHash });
    });
    return out;
  }
}
