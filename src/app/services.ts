import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { Redis } from 'ioredis';
import { importOptional } from '../core/optional-dependency.ts';
import type { CitadelConfig } from '../config/types.ts';
import type { Database } from '../db/schema.ts';
import type { Dialect } from '../db/url.ts';
import type { Clock } from '../core/clock.ts';
import { SecretBox } from '../core/crypto.ts';
import { DatabaseSessionStore } from '../http/sessions/store.ts';
import { RedisSessionStore } from '../http/sessions/store-redis.ts';
import { DatabaseRateLimitStore, RateLimiter } from '../http/limits/rate-limit.ts';
import { RedisRateLimitStore } from '../http/limits/rate-limit-redis.ts';
import { CustomMailer, LogMailer, SmtpMailer } from '../mail/mailer.ts';
import { EmailSender } from '../mail/emails.ts';
import type { CoreServices } from '../http/core-services.ts';
import { BrandedMailer } from '../mail/branding.ts';

export async function createCoreServices(
  config: CitadelConfig,
  deps: { db: Kysely<Database>; dialect: Dialect; clock: Clock; logger: FastifyBaseLogger },
): Promise<{ services: CoreServices; redis?: Redis }> {
  const { db, dialect, clock, logger } = deps;
  // ioredis is an optional peer dependency, loaded only when REDIS_URL is set.
  const RedisClient = config.redisUrl
    ? (await importOptional('ioredis', 'REDIS_URL', () => import('ioredis'))).Redis
    : undefined;
  // Connected by the start-up check (or the first command); errors before the first connection
  // are that check's to report, in one line.
  const redis =
    config.redisUrl && RedisClient
      ? new RedisClient(config.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 2 })
      : undefined;
  let connectedOnce = false;
  redis?.once('ready', () => (connectedOnce = true));
  redis?.on('error', (err) => {
    if (connectedOnce) logger.error({ err: { message: err.message } }, 'redis error');
  });
  // APP_NAME on every subject and body, whatever sends the message; the application's mail
  // service, else SMTP, else the log.
  const mailer = new BrandedMailer(
    config.mail
      ? new CustomMailer(config.mail, config.mailFrom)
      : config.smtpUrl
        ? new SmtpMailer(config.smtpUrl, config.mailFrom)
        : new LogMailer(logger, config.mailFrom),
    config.appName,
  );
  const services: CoreServices = {
    config,
    db,
    dialect,
    clock,
    secrets: new SecretBox(config.sessionSecret),
    sessions: redis ? new RedisSessionStore(redis, clock) : new DatabaseSessionStore(db, clock, dialect),
    rateLimiter: new RateLimiter(
      redis ? new RedisRateLimitStore(redis) : new DatabaseRateLimitStore(db, dialect, clock),
    ),
    mailer,
    emails: new EmailSender(mailer, config.emails ?? {}, config.appName),
  };
  return { services, redis };
}
