import type { Redis } from 'ioredis';
import { assertDistinctKeys, type CounterHit, type LimitState, type RateLimitStore } from './rate-limit.ts';

/** Rate-limit counters in Redis (REDIS_URL): ioredis is loaded only when it is configured. */
const RELEASE_SCRIPT =
  "if tonumber(redis.call('get', KEYS[1]) or '0') > 0 then return redis.call('decr', KEYS[1]) end return 0";

export class RedisRateLimitStore implements RateLimitStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix = 'citadel:rl:',
  ) {}

  async hit(key: string, windowSeconds: number): Promise<LimitState> {
    const [state] = await this.hitMany([{ key, windowSeconds }]);
    return state!;
  }

  /** One MULTI for every counter: one round trip, each counter atomic. */
  async hitMany(hits: readonly CounterHit[]): Promise<LimitState[]> {
    assertDistinctKeys(hits);
    const multi = this.redis.multi();
    for (const { key, windowSeconds } of hits) {
      const k = this.prefix + key;
      // The window's expiry is set in the same transaction as the first count, so a counter can
      // never be left without one.
      multi
        .set(k, 0, 'PX', windowSeconds * 1000, 'NX')
        .incr(k)
        .pttl(k);
    }
    const replies = ((await multi.exec()) ?? []) as [Error | null, unknown][];
    const failed = replies.find(([error]) => error);
    if (failed) throw failed[0];
    return hits.map((_, i) => {
      const [, count] = replies[i * 3 + 1]!;
      const [, ttl] = replies[i * 3 + 2]!;
      return { count: Number(count), retryAfter: Math.max(0, Number(ttl)) / 1000 };
    });
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

  /** One round trip: the resets and the releases in one MULTI. */
  async settle(keys: { release: readonly string[]; reset: readonly string[] }): Promise<void> {
    const multi = this.redis.multi();
    for (const key of keys.reset) multi.del(this.prefix + key);
    for (const key of keys.release.filter((k) => !keys.reset.includes(k)))
      multi.eval(RELEASE_SCRIPT, 1, this.prefix + key);
    await multi.exec();
  }

  async release(key: string): Promise<void> {
    // One step, so two releases cannot both see 1 and go below zero.
    await this.redis.eval(RELEASE_SCRIPT, 1, this.prefix + key);
  }
}

/** Limits expressed as rules over a store: `check` refuses once `max` is reached, `hit` counts. */
