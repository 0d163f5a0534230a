import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import { Redis } from 'ioredis';
import type { CitadelConfig } from './config/types.ts';
import type { Database } from './db/schema.ts';
import type { Dialect } from './db/url.ts';
import type { Clock } from './core/clock.ts';
import { SecretBox } from './core/crypto.ts';
import { DatabaseSessionStore, RedisSessionStore, type SessionStore } from './http/sessions/store.ts';
import { DatabaseRateLimitStore, RateLimiter, RedisRateLimitStore } from './http/rate-limit.ts';
import { LogMailer, SmtpMailer, type Mailer } from './mail/mailer.ts';

/**
 * The services of the core, each one decorator of the Fastify instance (see http/fastify-types.ts).
 * Plugins add theirs (users, tokens, actions, ...) when they are registered.
 */
export interface CoreServices {
  config: CitadelConfig;
  db: Kysely<Database>;
  dialect: Dialect;
  clock: Clock;
  secrets: SecretBox;
  sessions: SessionStore;
  rateLimiter: RateLimiter;
  mailer: Mailer;
}

export function createCoreServices(
  config: CitadelConfig,
  deps: { db: Kysely<Database>; dialect: Dialect; clock: Clock; logger: FastifyBaseLogger },
): { services: CoreServices; redis?: Redis } {
  const { db, dialect, clock, logger } = deps;
  const redis = config.redisUrl
    ? new Redis(config.redisUrl, { lazyConnect: false, maxRetriesPerRequest: 2 })
    : undefined;
  redis?.on('error', (err) => logger.error({ err: { message: err.message } }, 'redis error'));
  const services: CoreServices = {
    config,
    db,
    dialect,
    clock,
    secrets: new SecretBox(config.sessionSecret),
    sessions: redis ? new RedisSessionStore(redis, clock) : new DatabaseSessionStore(db, clock),
    rateLimiter: new RateLimiter(
      redis ? new RedisRateLimitStore(redis) : new DatabaseRateLimitStore(db, dialect, clock),
    ),
    mailer: config.smtpUrl
      ? new SmtpMailer(config.smtpUrl, config.mailFrom)
      : new LogMailer(logger, config.mailFrom),
  };
  return { services, redis };
}
