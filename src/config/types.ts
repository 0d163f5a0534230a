import type { Clock } from '../core/clock.ts';
import type { CitadelMigration } from '../db/migrations/types.ts';

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

/**
 * Settings that the capabilities add to the configuration by declaration merging (the pipeline's
 * `actions`, the resource `api`, `plugins`, `seed`, ...). The core does not read them: they pass
 * from the options to the resolved configuration unchanged.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by declaration merging
export interface ExtensionSettings {}

/** What `createServer()` accepts: every field optional, environment variables fill the rest. */
export interface CitadelOptions extends ExtensionSettings {
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
  /** The application's own migrations (its tables), applied after Citadel's own. */
  migrations?: CitadelMigration[];
  /** Source of time; tests pass a controllable clock. */
  clock?: Clock;
  /** Read the environment (process.env by default); pass {} to ignore it. */
  env?: Record<string, string | undefined>;
}

/** The resolved configuration every module reads. */
export interface CitadelConfig extends ExtensionSettings {
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
  migrations: CitadelMigration[];
  /** True when APP_URL is https: cookies get `Secure`. */
  secureCookies: boolean;
  trustProxy: boolean;
}
