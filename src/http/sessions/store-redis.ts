import type { Redis } from 'ioredis';
import type { Clock } from '../../core/clock.ts';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { isForeignKeyViolation } from '../../db/errors.ts';
import {
  insertCompanions,
  type EndedSession,
  type SessionData,
  type SessionEndWatcher,
  type StoredSession,
  type SessionStore,
} from './store.ts';

/** How long a watched session's key outlives its expiry, for its end to be told. */
const WATCHED_GRACE_MS = 24 * 60 * 60 * 1000;

/** Sessions in Redis: one key per session with a TTL, and a set per user to end all of a user's sessions. */
export class RedisSessionStore implements SessionStore {
  constructor(
    private readonly redis: Redis,
    private readonly clock: Clock,
    private readonly prefix = 'citadel:',
  ) {}

  private ends: { watchers: readonly SessionEndWatcher[]; db: Kysely<Database> } | null = null;

  /** Redis shares no transaction with the database: the watchers' rows follow the removal. */
  watchEnds(watchers: readonly SessionEndWatcher[], db: Kysely<Database>): void {
    this.ends = watchers.length > 0 ? { watchers, db } : null;
  }

  watches(data: SessionData): boolean {
    return this.ends?.watchers.some((watcher) => watcher.key in data) ?? false;
  }

  /** Tell the watchers of a session this store removed (a user deleted meanwhile: nobody to tell). */
  private async told(ended: EndedSession): Promise<void> {
    if (!this.ends || !this.watches(ended.data)) return;
    const companions = this.ends.watchers.flatMap((watcher) =>
      watcher.key in ended.data ? watcher.ended(ended, this.clock) : [],
    );
    try {
      await insertCompanions(this.ends.db, companions);
    } catch (error) {
      if (!isForeignKeyViolation(error)) throw error;
    }
  }

  private key(idHash: string): string {
    return `${this.prefix}session:${idHash}`;
  }

  private userKey(userId: number): string {
    return `${this.prefix}user-sessions:${userId}`;
  }

  /** Watched sessions by their expiry (ms): Redis drops a key silently, so these are swept instead. */
  private watchedKey(): string {
    return `${this.prefix}watched-sessions`;
  }

  async load(idHash: string): Promise<StoredSession | null> {
    const raw = await this.redis.get(this.key(idHash));
    if (!raw) return null;
    const stored = JSON.parse(raw) as StoredSession;
    if (stored.expiresAt <= this.clock.now().toISOString()) {
      await this.destroy(idHash, { userId: stored.userId, data: stored.data, cause: 'expired' });
      return null;
    }
    return stored;
  }

  /** SET with NX (insert) or XX (update): Redis decides atomically whether the key exists. */
  private async write(idHash: string, session: StoredSession, mode: 'NX' | 'XX'): Promise<boolean> {
    const expiresAtMs = new Date(session.expiresAt).getTime();
    const watched = this.watches(session.data);
    // A watched session outlives its expiry by a day, for `destroyExpired` to tell of its end.
    const ttlMs = Math.max(1000, expiresAtMs - this.clock.now().getTime()) + (watched ? WATCHED_GRACE_MS : 0);
    const value = JSON.stringify(session);
    const key = this.key(idHash);
    const written =
      mode === 'NX'
        ? await this.redis.set(key, value, 'PX', ttlMs, 'NX')
        : await this.redis.set(key, value, 'PX', ttlMs, 'XX');
    if (written !== 'OK') return false;
    if (watched) await this.redis.zadd(this.watchedKey(), expiresAtMs, idHash);
    if (session.userId !== null) {
      await this.redis
        .multi()
        .sadd(this.userKey(session.userId), idHash)
        .pexpire(this.userKey(session.userId), ttlMs * 2)
        .exec();
    }
    return true;
  }

  /** Redis shares no transaction with the database: the caller writes its rows after the session. */
  async atomically<T>(work: (store: SessionStore, db: null) => Promise<T>): Promise<T> {
    return work(this, null);
  }

  async insert(idHash: string, session: StoredSession): Promise<void> {
    if (!(await this.write(idHash, session, 'NX'))) throw new Error('session id collision');
    // Now and then, as the database store does.
    if (this.ends && Math.random() < 0.01) await this.destroyExpired();
  }

  /** Remove the watched sessions whose idle time ran out, each told once (the rest Redis drops). */
  async destroyExpired(): Promise<void> {
    if (!this.ends) return;
    const now = this.clock.now();
    const due = await this.redis.zrangebyscore(this.watchedKey(), '-inf', now.getTime());
    for (const idHash of due) {
      const raw = await this.redis.get(this.key(idHash));
      const stored = raw ? (JSON.parse(raw) as StoredSession) : null;
      if (stored && stored.expiresAt > now.toISOString() && this.watches(stored.data))
        await this.redis.zadd(this.watchedKey(), new Date(stored.expiresAt).getTime(), idHash);
      else if (stored && stored.expiresAt <= now.toISOString())
        await this.destroy(idHash, { userId: stored.userId, data: stored.data, cause: 'expired' });
      else await this.redis.zrem(this.watchedKey(), idHash);
    }
  }

  async update(idHash: string, session: StoredSession): Promise<boolean> {
    return this.write(idHash, session, 'XX');
  }

  async destroy(idHash: string, known?: EndedSession): Promise<boolean> {
    const raw = await this.redis.get(this.key(idHash));
    const multi = this.redis.multi().del(this.key(idHash));
    if (this.ends) multi.zrem(this.watchedKey(), idHash);
    const stored = raw ? (JSON.parse(raw) as StoredSession) : null;
    if (stored && stored.userId !== null) multi.srem(this.userKey(stored.userId), idHash);
    const results = (await multi.exec()) ?? [];
    // DEL's count: only the caller that removed the key tells the watchers.
    const removed = Number(results[0]?.[1] ?? 0) > 0;
    const ended =
      known ?? (stored ? { userId: stored.userId, data: stored.data, cause: 'ended' as const } : null);
    if (removed && ended) await this.told(ended);
    return removed;
  }

  async destroyForUser(userId: number, exceptIdHash?: string): Promise<void> {
    const ids = await this.redis.smembers(this.userKey(userId));
    let doomed = ids.filter((id) => id !== exceptIdHash);
    if (doomed.length === 0) return;
    if (this.ends) {
      // Watched sessions go one by one, each told once.
      const values = await this.redis.mget(...doomed.map((id) => this.key(id)));
      const watched = new Set<string>();
      for (const [i, raw] of values.entries()) {
        const stored = raw ? (JSON.parse(raw) as StoredSession) : null;
        if (!stored || !this.watches(stored.data)) continue;
        watched.add(doomed[i]!);
        await this.destroy(doomed[i]!, { userId: stored.userId, data: stored.data, cause: 'ended' });
      }
      doomed = doomed.filter((id) => !watched.has(id));
      if (doomed.length === 0) return;
    }
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
