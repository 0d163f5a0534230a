import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../db/url.ts';
import type { Redis } from 'ioredis';
import type { Database } from '../db/schema.ts';
import { isoAfter, type Clock } from '../core/clock.ts';
import { TooManyRequestsError } from '../core/errors.ts';
import { sha256Hex } from '../core/crypto.ts';

/** The `rate_limits.key` column holds 191 characters (the MySQL index limit). */
const MAX_STORED_KEY = 191;

/**
 * Keys carry user input (an identifier, an address) and can outgrow the column: a long key keeps a
 * readable head and ends in the SHA-256 of the whole key, so it stays unique and fits.
 */
export function storedLimitKey(key: string): string {
  if (key.length <= MAX_STORED_KEY) return key;
  return `${key.slice(0, MAX_STORED_KEY - 65)}#${sha256Hex(key)}`;
}

export interface LimitState {
  count: number;
  /** Seconds until the window resets. */
  retryAfter: number;
}

/**
 * Fixed-window counters shared by every process (database or Redis), keyed by what is limited,
 * for example `login:ip:<ip>:<identifier>`.
 */
export interface RateLimitStore {
  /** Add one to the counter and return the new state. */
  hit(key: string, windowSeconds: number): Promise<LimitState>;
  /** Read without counting. */
  peek(key: string): Promise<LimitState>;
  reset(key: string): Promise<void>;
}

/** How many counted hits between two sweeps of ended windows. */
export const SWEEP_EVERY_HITS = 500;

export class DatabaseRateLimitStore implements RateLimitStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
    private readonly clock: Clock,
  ) {}

  private secondsUntil(iso: string): number {
    return Math.max(0, (new Date(iso).getTime() - this.clock.now().getTime()) / 1000);
  }

  async peek(rawKey: string): Promise<LimitState> {
    const key = storedLimitKey(rawKey);
    const row = await this.db
      .selectFrom('rate_limits')
      .select(['count', 'reset_at'])
      .where('key', '=', key)
      .executeTakeFirst();
    if (!row || row.reset_at <= this.clock.now().toISOString()) return { count: 0, retryAfter: 0 };
    return { count: row.count, retryAfter: this.secondsUntil(row.reset_at) };
  }

  async hit(rawKey: string, windowSeconds: number): Promise<LimitState> {
    const key = storedLimitKey(rawKey);
    const now = this.clock.now().toISOString();
    const resetAt = isoAfter(this.clock, windowSeconds);
    // Restart an expired window, then count with one atomic upsert.
    await this.db.deleteFrom('rate_limits').where('key', '=', key).where('reset_at', '<=', now).execute();
    const insert = this.db.insertInto('rate_limits').values({ key, count: 1, reset_at: resetAt });
    if (this.dialect === 'mysql') {
      await insert.onDuplicateKeyUpdate({ count: sql<number>`count + 1` }).execute();
    } else {
      await insert
        .onConflict((oc) => oc.column('key').doUpdateSet({ count: sql<number>`rate_limits.count + 1` }))
        .execute();
    }
    const row = await this.db
      .selectFrom('rate_limits')
      .select(['count', 'reset_at'])
      .where('key', '=', key)
      .executeTakeFirstOrThrow();
    await this.sweepNowAndThen(now);
    return { count: row.count, retryAfter: this.secondsUntil(row.reset_at) };
  }

  private hitsSinceSweep = 0;

  /** Windows that ended are otherwise only removed when their key comes back: sweep them regularly. */
  private async sweepNowAndThen(now: string): Promise<void> {
    this.hitsSinceSweep += 1;
    if (this.hitsSinceSweep < SWEEP_EVERY_HITS) return;
    this.hitsSinceSweep = 0;
    await this.db.deleteFrom('rate_limits').where('reset_at', '<=', now).execute();
  }

  async reset(rawKey: string): Promise<void> {
    await this.db.deleteFrom('rate_limits').where('key', '=', storedLimitKey(rawKey)).execute();
  }
}

export class RedisRateLimitStore implements RateLimitStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix = 'citadel:rl:',
  ) {}

  async hit(key: string, windowSeconds: number): Promise<LimitState> {
    const k = this.prefix + key;
    // The window's expiry is set in the same transaction as the first count, so a counter can
    // never be left without one.
    const [, [, count], [, ttl]] = (await this.redis
      .multi()
      .set(k, 0, 'PX', windowSeconds * 1000, 'NX')
      .incr(k)
      .pttl(k)
      .exec()) as [unknown, [null, number], [null, number]];
    return { count, retryAfter: Math.max(0, ttl) / 1000 };
  }

  async peek(key: string): Promise<LimitState> {
    const k = this.prefix + key;
    const [[, count], [, ttl]] = (await this.redis.multi().get(k).pttl(k).exec()) as [
      [null, string | null],
      [null, number],
    ];
    return { count: Number(count ?? 0), retryAfter: Math.max(0, ttl) / 1000 };
  }

  async reset(key: string): Promise<void> {
    await this.redis.del(this.prefix + key);
  }
}

/** Limits expressed as rules over a store: `check` refuses once `max` is reached, `hit` counts. */
export class RateLimiter {
  constructor(readonly store: RateLimitStore) {}

  /** Throw 429 when the counter already holds `max` hits in its window. */
  async check(key: string, max: number): Promise<void> {
    const state = await this.store.peek(key);
    if (state.count >= max) throw new TooManyRequestsError(state.retryAfter);
  }

  /** Count one hit; throw 429 when that hit goes over `max`. */
  async consume(key: string, max: number, windowSeconds: number): Promise<void> {
    const state = await this.store.hit(key, windowSeconds);
    if (state.count > max) throw new TooManyRequestsError(state.retryAfter);
  }

  async hit(key: string, windowSeconds: number): Promise<LimitState> {
    return this.store.hit(key, windowSeconds);
  }

  async reset(key: string): Promise<void> {
    await this.store.reset(key);
  }
}
