import type { Clock } from '../core/clock.ts';
import type { CitadelMigration } from '../db/migrations/types.ts';
import type { OpenApiVersion } from '../core/openapi.ts';
import type { EmailTemplates, MailService } from '../mail/kinds.ts';

/** Log levels (LOG_LEVEL). */
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
  /**
   * Client authentication at the token endpoint (OAUTH_<ID>_TOKEN_AUTH): `client_secret_basic`
   * (the default, RFC 6749 §2.3.1) or `client_secret_post`.
   */
  tokenEndpointAuth?: 'client_secret_basic' | 'client_secret_post';
  /** Display name on the sign-in buttons. */
  label: string;
}

/**
 * The core's lifetimes (seconds) and limits: sessions, remember-me, half-finished sign-ins, the
 * email send limits shared by every capability that mails, password length, token bookkeeping.
 * The built-in plugins' own lifetimes and limits are their options (`magicLink({ ttlSeconds })`).
 */
export interface Limits {
  sessionIdleTtl: number;
  rememberTtl: number;
  pendingActionTtl: number;
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
  /** Public base URL (APP_URL); when Citadel is mounted under a path, include that path. */
  appUrl?: string;
  /**
   * The path Citadel is mounted under (`/auth`), prepended to its links and redirects. Default:
   * the path of `appUrl` (none). The Fastify plugin sets it to its `prefix`.
   */
  basePath?: string;
  /** The name on pages, emails, the TOTP issuer and the WebAuthn relying party (APP_NAME, default `Citadel`). */
  appName?: string;
  /** URL of a stylesheet the pages load after their own styles. */
  stylesheet?: string;
  databaseUrl?: string;
  sessionSecret?: string;
  smtpUrl?: string;
  mailFrom?: string;
  /**
   * The application's mail service (any provider's SDK): `{ send(message) }` replaces SMTP
   * (`smtpUrl` and SMTP_URL are then not used). `message` has `from`, `to`, `subject`, `text`,
   * `html`, and the `kind` and `props` of the message.
   */
  mail?: MailService;
  /**
   * Replacements of Citadel's messages by kind (`resetPassword`, `magicLink`, ...: see `EmailKinds`):
   * `(props, defaults) => ({ subject?, text?, html? })`; missing parts and other kinds keep the
   * defaults. `html` must come from the `html` template (citadel/html), which escapes.
   */
  emails?: EmailTemplates;
  loginActions?: string[];
  registerActions?: string[];
  /**
   * REGISTER_HIDE_EXISTING: registering a known address answers like a new one and mails the
   * owner instead (needs `email_activation` among the register actions).
   */
  registerHideExisting?: boolean;
  redisUrl?: string;
  sqidsAlphabet?: string;
  sqidsMinLength?: number;
  /**
   * One Sqids alphabet per id space (table), derived from the secret (SQIDS_PER_RESOURCE, default
   * true). `false`: one alphabet for every id space (ids issued under one setting are not valid
   * under the other).
   */
  sqidsPerResource?: boolean;
  seedDemo?: boolean;
  logLevel?: LogLevel;
  /** Folder for the generated session secret and the default SQLite file. */
  dataDir?: string;
  production?: boolean;
  /**
   * Behind reverse proxies: their hop count, or their addresses/CIDRs (TRUST_PROXY); the client IP is
   * the right-most untrusted X-Forwarded-For entry. `true` means one hop.
   */
  trustProxy?: boolean | number | string | string[];
  /** Bearer token for GET /metrics (METRICS_TOKEN); without one there is no /metrics. */
  metricsToken?: string;
  /** Security events older than this many days are deleted (EVENT_RETENTION_DAYS, default 180). */
  eventRetentionDays?: number;
  /** The core's limits; the built-in plugins' own limits are their options. */
  limits?: Partial<Limits>;
  /** The application's own migrations (its tables), applied after Citadel's own. */
  migrations?: CitadelMigration[];
  /** Source of time; tests pass a controllable clock. */
  clock?: Clock;
  /** Read the environment (process.env by default); pass {} to ignore it. */
  env?: Record<string, string | undefined>;
  /**
   * OpenAPI version of the generated documents: `3.0` (3.0.3, the default, as the spec says) or
   * `3.1` (3.1.0). The resource API's `openapi` option, when given, wins for its documents.
   */
  openapi?: OpenApiVersion;
}

/** The resolved configuration every module reads. */
export interface CitadelConfig extends ExtensionSettings {
  /** The environment the configuration was read from: plugins read their own variables here. */
  env: Record<string, string | undefined>;
  port: number;
  host: string;
  /** Public base URL, mount path included, without a trailing slash. */
  appUrl: string;
  /** The mount path (`/auth`) or the empty string. */
  basePath: string;
  appName: string;
  stylesheet?: string;
  databaseUrl: string;
  sessionSecret: string;
  smtpUrl?: string;
  mailFrom: string;
  mail?: MailService;
  emails?: EmailTemplates;
  loginActions: string[];
  registerActions: string[];
  registerHideExisting: boolean;
  redisUrl?: string;
  sqidsAlphabet?: string;
  sqidsMinLength: number;
  sqidsPerResource: boolean;
  seedDemo: boolean;
  logLevel: LogLevel;
  dataDir: string;
  production: boolean;
  /** The core's limits. */
  limits: Limits;
  migrations: CitadelMigration[];
  /** True when APP_URL is https: cookies get `Secure`. */
  secureCookies: boolean;
  /** See src/config/trust-proxy.ts. */
  trustProxy: false | number | string[];
  metricsToken?: string;
  /** Days security events are kept; the core's sweep deletes older ones. */
  eventRetentionDays: number;
  openapi?: OpenApiVersion;
}
