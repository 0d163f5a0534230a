import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { DatabaseRateLimitStore, SWEEP_EVERY_HITS } from '../../src/http/rate-limit.ts';
import { RedisRateLimitStore } from '../../src/http/rate-limit-redis.ts';
import { REDIS_URL, redisAvailable } from '../helpers/services.ts';

describe('database rate-limit store', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t?.close());

  it('sweeps windows that ended, and only those', async () => {
    const store = new DatabaseRateLimitStore(t.services.db, t.services.dialect, t.clock);
    await store.hit('old-window', 60);
    t.clock.advance(120);
    await store.hit('live-window', 3600);
    for (let i = 1; i < SWEEP_EVERY_HITS; i++) await store.hit(`other-${i % 3}`, 3600);
    const keys = (await t.services.db.selectFrom('rate_limits').select('key').execute()).map((r) => r.key);
    expect(keys).not.toContain('old-window');
    expect(keys).toContain('live-window');
    expect((await store.peek('live-window')).count).toBe(1);
  });
});

const hasRedis = await redisAvailable();

describe.skipIf(!hasRedis)('Redis rate-limit store', () => {
  it('gives every counter an expiry with its first hit, and counts within the window', async () => {
    const redis = new Redis(REDIS_URL);
    const prefix = `citadel-test:${process.pid}:${Date.now()}:`;
    const store = new RedisRateLimitStore(redis, prefix);
    try {
      const first = await store.hit('k', 30);
      expect(first.count).toBe(1);
      expect(first.retryAfter).toBeGreaterThan(29);
      expect(first.retryAfter).toBeLessThanOrEqual(30);
      expect((await store.hit('k', 30)).count).toBe(2);
      expect(await redis.pttl(`${prefix}k`)).toBeGreaterThan(0);
      await store.reset('k');
      expect((await store.peek('k')).count).toBe(0);
    } finally {
      await redis.del(`${prefix}k`);
      redis.disconnect();
    }
  });
});
