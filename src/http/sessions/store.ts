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

/** Server-side session storage, keyed by the SHA-256 of the cookie value. */
export interface SessionStore {
  load(idHash: string): Promise<StoredSession | null>;
  save(idHash: string, session: StoredSession): Promise<void>;
  destroy(idHash: string): Promise<void>;
  /** Ends every session of a user (password reset, password change), optionally sparing one. */
  destroyForUser(userId: number, exceptIdHash?: string): Promise<void>;
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

  async save(idHash: string, session: StoredSession): Promise<void> {
    const values = {
      user_id: session.userId,
      data: JSON.stringify(session.data),
      expires_at: session.expiresAt,
      updated_at: this.clock.now().toISOString(),
    };
    // Update first: the common case is an existing session. Insert when nothing was updated.
    const updated = await this.db
      .updateTable('sessions')
      .set(values)
      .where('id', '=', idHash)
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) === 0) {
      await this.db
        .insertInto('sessions')
        .values({ id: idHash, ...values })
        .execute();
    }
    // Opportunistic cleanup of expired rows, about once per 200 writes.
    if (Math.random() < 0.005) {
      await this.db
        .deleteFrom('sessions')
        .where('expires_at', '<=', this.clock.now().toISOString())
        .execute();
    }
  }

  async destroy(idHash: string): Promise<void> {
    await this.db.deleteFrom('sessions').where('id', '=', idHash).execute();
  }

  async destroyForUser(userId: number, exceptIdHash?: string): Promise<void> {
    let query = this.db.deleteFrom('sessions').where('user_id', '=', userId);
    if (exceptIdHash) query = query.where('id', '!=', exceptIdHash);
    await query.execute();
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

  async save(idHash: string, session: StoredSession): Promise<void> {
    const ttlMs = Math.max(1000, new Date(session.expiresAt).getTime() - this.clock.now().getTime());
    const multi = this.redis.multi().set(this.key(idHash), JSON.stringify(session), 'PX', ttlMs);
    if (session.userId !== null) {
      multi.sadd(this.userKey(session.userId), idHash).pexpire(this.userKey(session.userId), ttlMs * 2);
    }
    await multi.exec();
  }

  async destroy(idHash: string): Promise<void> {
    const raw = await this.redis.get(this.key(idHash));
    const multi = this.redis.multi().del(this.key(idHash));
    if (raw) {
      const { userId } = JSON.parse(raw) as StoredSession;
      if (userId !== null) multi.srem(this.userKey(userId), idHash);
    }
    await multi.exec();
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
}
