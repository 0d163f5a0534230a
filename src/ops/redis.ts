import type { Redis } from 'ioredis';
import { redactUrl } from '../db/url.ts';

/** How long start-up waits for Redis to answer. */
export const REDIS_STARTUP_BUDGET_MS = 5000;

export class RedisUnavailableError extends Error {
  override name = 'RedisUnavailableError';
}

/**
 * Start-up stops when REDIS_URL does not answer, like an unreachable database: a server that
 * cannot keep sessions should not take traffic. The client is disconnected first, so its retries
 * stop too.
 */
export async function assertRedisReachable(
  redis: Redis,
  url: string,
  budgetMs = REDIS_STARTUP_BUDGET_MS,
): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timed out')), budgetMs);
  });
  try {
    await Promise.race([redis.status === 'wait' ? redis.connect() : redis.ping(), timeout]);
  } catch {
    redis.disconnect();
    throw new RedisUnavailableError(`could not connect to Redis at ${redactUrl(url)} (no answer)`);
  } finally {
    clearTimeout(timer);
  }
}
