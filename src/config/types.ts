import type { Kysely } from 'kysely';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/schema.ts';
import type { PipelineAction } from '../auth/pipeline/types.ts';
import type { ApiConfig } from '../api/types.ts';
import type { CitadelMigration } from '../db/migrations/types.ts';
import type { CitadelServices } from '../services.ts';

/** The application's part of an account deletion: remove or anonymise its own rows of the user. */
export type UserDeletedHook = (
  user: { id: number; username: string; email: string },
  ctx: { db: Kysely<Database> },
) => Promise<void> | void;

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

/** One social sign-in provider, resolved from OAUTH_<ID>_* or given in code. */
export interface OAuthProviderConfig {
  id: string;
  clientId: string;
  clientSecret: string;
  /** OpenID Connect issuer; discovery is used when set. */
  issuer?: string;
  authorizationUrl?: string;
  tokenUrl?: string;
  userinfoUrl?: string;
  scopes: string[];
  /** Display name on the sign-in buttons. */
  label: string;
}

/** Lifetimes (seconds) and limits. Every one is configurable; defaults are in contract.md. */
export interface Limits {
  sessionIdleTtl: number;
  rememberTtl: number;
  resetTokenTtl: number;
  magicLinkTtl: number;
  pendingActionTtl: number;
  codeTtl: number;
  codeResendInterval: number;
  maxCodeAttempts: number;
  sudoTtl: number;
  sudoMaxFailures: number;
  sudoFailureWindow: number;
  loginFailuresPerIdentifierIp: number;
  loginFailureWindow: number;
  loginFailuresPerAccount: number;
  loginAccountWindow: number;
  sendsPerAddress: number;
  sendsPerIp: number;
  sendWindow: number;
  passwordMinLength: number;
  passwordMaxLength: number;
  tokenLastUsedInterval: number;
}

/** What `createServer()` accepts: every field optional, environment variables fill the rest. */
export interface CitadelOptions {
  port?: number;
  host?: string;
  appUrl?: string;
  databaseUrl?: string;
  sessionSecret?: string;
  smtpUrl?: string;
  mailFrom?: string;
  loginActions?: string[];
  registerActions?: string[];
  sudoTtl?: number;
  oauthProviders?: OAuthProviderConfig[];
  redisUrl?: string;
  sqidsAlphabet?: string;
  sqidsMinLength?: number;
  seedDemo?: boolean;
  logLevel?: LogLevel;
  /** Folder for the generated session secret and the default SQLite file. */
  dataDir?: string;
  production?: boolean;
  /** Behind a reverse proxy or load balancer: take the client IP from X-Forwarded-For (TRUST_PROXY=1). */
  trustProxy?: boolean;
  limits?: Partial<Limits>;
  /** Custom post-sign-in actions, by id. */
  actions?: PipelineAction[];
  /** The resource API: resources and where they are published. */
  api?: ApiConfig;
  /** The application's own migrations (its tables), applied after the core ones. */
  migrations?: CitadelMigration[];
  /** Sample data, run after migrations when `seedDemo` is on; it decides itself whether to add anything. */
  seed?: (services: CitadelServices) => Promise<void>;
  /** Source of time; tests pass a controllable clock. */
  clock?: Clock;
  /** Account center (contract section 10): REQUIRE_TWO_FACTOR, NOTIFY_EVENTS, EVENT_RETENTION_DAYS. */
  requireTwoFactor?: boolean;
  /** Notification emails to send (ids in account-center/notify.ts); default all, [] none. */
  notifyEvents?: string[];
  eventRetentionDays?: number;
  /** Runs inside the account deletion's transaction (`ctx.db` is that transaction). */
  onUserDeleted?: UserDeletedHook;
  /** Read the environment (process.env by default); pass {} to ignore it. */
  env?: Record<string, string | undefined>;
}

/** The resolved configuration every module reads. */
export interface CitadelConfig {
  port: number;
  host: string;
  appUrl: string;
  databaseUrl: string;
  sessionSecret: string;
  smtpUrl?: string;
  mailFrom: string;
  loginActions: string[];
  registerActions: string[];
  oauthProviders: OAuthProviderConfig[];
  redisUrl?: string;
  sqidsAlphabet?: string;
  sqidsMinLength: number;
  seedDemo: boolean;
  logLevel: LogLevel;
  dataDir: string;
  production: boolean;
  limits: Limits;
  actions: PipelineAction[];
  api?: ApiConfig;
  migrations: CitadelMigration[];
  seed?: (services: CitadelServices) => Promise<void>;
  requireTwoFactor: boolean;
  notifyEvents: string[];
  eventRetentionDays: number;
  onUserDeleted?: UserDeletedHook;
  /** True when APP_URL is https: cookies get `Secure`. */
  secureCookies: boolean;
  trustProxy: boolean;
}
