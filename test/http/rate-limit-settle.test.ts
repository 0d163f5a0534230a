import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { startTestApp, type TestApp } from '../support/app.ts';
import { DatabaseRateLimitStore, type RateLimitStore } from '../../src/http/limits/rate-limit.ts';
import { RedisRateLimitStore } from '../../src/http/limits/rate-limit-redis.ts';
import { REDIS_URL, redisAvailable } from '../support/services.ts';

/**
 * `settle` (one statement at a successful sign-in, issue 12): released keys give back one hit,
 * reset keys start over, other keys are untouched, and nothing goes below zero.
 */
async function checkSettle(store: RateLimitStore) {
  for (let i = 0; i < 3; i++) await store.hit('released', 3600);
  for (let i = 0; i < 4; i++) await store.hit('reset', 3600);
  await store.hit('untouched', 3600);
  await store.settle({ release: ['released', 'never-hit'], reset: ['reset'] });
  expect((await store.peek('released')).count).toBe(2);
  expect((await store.peek('reset')).count).toBe(0);
  expect((await store.peek('untouched')).count).toBe(1);
  expect((await store.peek('never-hit')).count).toBe(0);
  // A reset key counts from one again within the same window.
  expect((await store.hit('reset', 3600)).count).toBe(1);
  // Released down to zero, and never below.
  await store.settle({ release: ['released'], reset: [] });
  await store.settle({ release: ['released'], reset: [] });
  await store.settle({ release: ['released'], reset: [] });
  expect((await store.peek('released')).count).toBe(0);
  expect((await store.hit('released', 3600)).count).toBe(1);
}

const hasRedis = await redisAvailable();

describe('rate-limit settle', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t?.close());

  it('database store: one UPDATE releases and resets', async () => {
    const statements: string[] = [];
    const store = new DatabaseRateLimitStore(t.services.db, t.services.dialect, t.clock);
    await checkSettle(store);
    const app = await startTestApp({ database: { onQuery: (sql) => statements.push(sql) } });
    try {
      const counted = new DatabaseRateLimitStore(app.services.db, app.services.dialect, app.clock);
      statements.length = 0;
      await counted.settle({ release: ['a'], reset: ['b', 'c'] });
      // Only this store's statements: the app's start-up sweeps may still be running.
      const mine = statements.filter((sql) => /rate_limits/.test(sql));
      expect(mine, mine.join('\n')).toHaveLength(1);
    } finally {
      await app.close();
    }
  });

  it.skipIf(!hasRedis)('Redis store: the same rules', async () => {
    const redis = new Redis(REDIS_URL);
    const prefix = `citadel-test:settle:${process.pid}:${Date.now()}:`;
    try {
      await checkSettle(new RedisRateLimitStore(redis, prefix));
    } finally {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
    }
  });
});
