import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { startTestApp, type TestApp } from '../support/app.ts';
import { DatabaseRateLimitStore, SWEEP_EVERY_HITS } from '../../src/http/limits/rate-limit.ts';
import { RedisRateLimitStore } from '../../src/http/limits/rate-limit-redis.ts';
import { REDIS_URL, redisAvailable } from '../support/services.ts';
import { testDialect } from '../support/databases.ts';

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

  // MySQL has no RETURNING: there each counter is its own LAST_INSERT_ID statement. On MariaDB
  // both paths run here (MySQL itself is not among the test databases).
  const paths =
    testDialect() === 'mysql'
      ? [
          { name: 'one RETURNING upsert', mysqlReturning: true },
          { name: "MySQL's LAST_INSERT_ID, one statement per counter", mysqlReturning: false },
        ]
      : [{ name: 'one RETURNING upsert', mysqlReturning: undefined }];
  for (const path of paths) {
    it(`hitMany (${path.name}): each hit gets its own count, in parallel too, each window its own`, async () => {
      const store = new DatabaseRateLimitStore(t.services.db, t.services.dialect, t.clock, {
        mysqlReturning: path.mysqlReturning,
      });
      const short = `short-${path.mysqlReturning}`;
      const long = `long-${path.mysqlReturning}`;
      const hits = [
        { key: short, windowSeconds: 60 },
        { key: long, windowSeconds: 3600 },
      ];
      const states = await Promise.all(Array.from({ length: 20 }, () => store.hitMany(hits)));
      const sorted = (i: number) => states.map((s) => s[i]!.count).sort((a, b) => a - b);
      const oneToTwenty = Array.from({ length: 20 }, (_, i) => i + 1);
      expect(sorted(0)).toEqual(oneToTwenty);
      expect(sorted(1)).toEqual(oneToTwenty);
      for (const [shortState, longState] of states) {
        expect(shortState!.retryAfter).toBeGreaterThan(0);
        expect(shortState!.retryAfter).toBeLessThanOrEqual(60);
        expect(longState!.retryAfter).toBeGreaterThan(60);
      }
      t.clock.advance(120);
      const [restarted, running] = await store.hitMany(hits);
      expect(restarted!.count).toBe(1);
      expect(running!.count).toBe(21);
      expect(running!.retryAfter).toBeLessThanOrEqual(3600 - 120);
      await expect(store.hitMany([hits[0]!, hits[0]!])).rejects.toThrow(/named twice/);
    });

    it(`hitMany (${path.name}): new counters hit from many requests at once, in either order, count each hit once and never fail`, async () => {
      const store = new DatabaseRateLimitStore(t.services.db, t.services.dialect, t.clock, {
        mysqlReturning: path.mysqlReturning,
      });
      const N = 60;
      for (let round = 0; round < 3; round += 1) {
        // Two counters one request hits together (a sign-in: its address-and-identifier pair and
        // its account), created by the first of N parallel requests; InnoDB could pick some of
        // them as deadlock victims.
        const pair = { key: `pair-${round}-${path.mysqlReturning}`, windowSeconds: 60 };
        const account = { key: `account-${round}-${path.mysqlReturning}`, windowSeconds: 3600 };
        const states = await Promise.all(
          Array.from({ length: N }, (_, i) =>
            i % 2 === 0
              ? store.hitMany([pair, account])
              : store.hitMany([account, pair]).then((s) => s.reverse()),
          ),
        );
        const oneToN = Array.from({ length: N }, (_, i) => i + 1);
        expect(states.map((s) => s[0]!.count).sort((a, b) => a - b)).toEqual(oneToN);
        expect(states.map((s) => s[1]!.count).sort((a, b) => a - b)).toEqual(oneToN);
      }
    });
  }
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
