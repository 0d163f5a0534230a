import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import { Redis } from 'ioredis';
import type { CitadelConfig } from './config/types.ts';
import type { Database } from './db/schema.ts';
import type { Dialect } from './db/url.ts';
import type { Clock } from './clock.ts';
import { SecretBox } from './crypto.ts';
import { UserService } from './auth/users.ts';
import { DatabaseSessionStore, RedisSessionStore, type SessionStore } from './http/sessions/store.ts';
import { DatabaseRateLimitStore, RateLimiter, RedisRateLimitStore } from './rate-limit.ts';
import { LogMailer, SmtpMailer, type Mailer } from './mail/mailer.ts';
import { PasswordHasher } from './auth/accounts/passwords.ts';
import { PersonalAccessTokens } from './auth/tokens/service.ts';
import { RememberTokens } from './auth/accounts/remember.ts';
import { ActionRegistry } from './auth/pipeline/registry.ts';
import type { UserRecord } from './auth/users.ts';
import type { FastifyRequest } from 'fastify';

/** How a session came to be: `rememberSelector` names this device's remember-me row, if any. */
export interface SignedInInfo {
  method: 'sign_in' | 'remember';
  rememberSelector?: string;
}

/** Runs after a session is established for a user (any sign-in path); modules add to it. */
export type SignedInListener = (
  request: FastifyRequest,
  user: UserRecord,
  info: SignedInInfo,
) => Promise<void> | void;

/**
 * The small shared services every module uses. Modules keep their own tables to themselves and
 * reach users, sessions, mail and limits only through these.
 */
export interface CitadelServices {
  config: CitadelConfig;
  db: Kysely<Database>;
  dialect: Dialect;
  clock: Clock;
  secrets: SecretBox;
  users: UserService;
  sessions: SessionStore;
  rateLimiter: RateLimiter;
  mailer: Mailer;
  passwords: PasswordHasher;
  tokens: PersonalAccessTokens;
  remember: RememberTokens;
  actions: ActionRegistry;
  /** Called in order after every successful sign-in (the sudo module grants factor-less users sudo). */
  signedInListeners: SignedInListener[];
  redis?: Redis;
  logger: FastifyBaseLogger;
}

export function createServices(
  config: CitadelConfig,
  deps: { db: Kysely<Database>; dialect: Dialect; clock: Clock; logger: FastifyBaseLogger },
): CitadelServices {
  const { db, dialect, clock, logger } = deps;
  const redis = config.redisUrl
    ? new Redis(config.redisUrl, { lazyConnect: false, maxRetriesPerRequest: 2 })
    : undefined;
  redis?.on('error', (err) => logger.error({ err: { message: err.message } }, 'redis error'));
  return {
    config,
    db,
    dialect,
    clock,
    secrets: new SecretBox(config.sessionSecret),
    users: new UserService(db, clock),
    sessions: redis ? new RedisSessionStore(redis, clock) : new DatabaseSessionStore(db, clock),
    rateLimiter: new RateLimiter(
      redis ? new RedisRateLimitStore(redis) : new DatabaseRateLimitStore(db, dialect, clock),
    ),
    mailer: config.smtpUrl
      ? new SmtpMailer(config.smtpUrl, config.mailFrom)
      : new LogMailer(logger, config.mailFrom),
    passwords: new PasswordHasher(),
    tokens: new PersonalAccessTokens(db, clock, config.limits.tokenLastUsedInterval),
    remember: new RememberTokens(db, clock, config.limits.rememberTtl),
    actions: new ActionRegistry(),
    signedInListeners: [],
    redis,
    logger,
  };
}
