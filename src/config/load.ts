import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseOpenApiVersion } from '../core/openapi.ts';
import { ConfigError } from '../core/errors.ts';
import { parseTrustProxy } from './trust-proxy.ts';
import type { CitadelConfig, CitadelOptions, Limits, LogLevel } from './types.ts';
import { parseDatabaseUrl } from '../db/url.ts';

export const defaultLimits: Limits = {
  sessionIdleTtl: 2 * 60 * 60,
  rememberTtl: 30 * 24 * 60 * 60,
  pendingActionTtl: 15 * 60,
  sendsPerAddress: 5,
  sendsPerIp: 30,
  sendWindow: 60 * 60,
  passwordMinLength: 8,
  passwordMaxLength: 256,
  tokenLastUsedInterval: 60,
};

const LOG_LEVELS: LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** What the configuration needs to know of a sign-in action: its id, and whether it runs by itself. */
export interface KnownAction {
  id: string;
  /** Runs on every sign-in where it is pending; listing it in AUTH_*_ACTIONS is a mistake. */
  automatic?: boolean;
}

function list(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

function integer(name: string, value: string | undefined, min: number): number | undefined {
  if (value === undefined || value === '') return undefined;
  if (!/^\d+$/.test(value) || Number(value) < min) {
    throw new ConfigError(`${name} must be a whole number of at least ${min}, got "${value}"`);
  }
  return Number(value);
}

/** The session secret: required in production; elsewhere generated once and kept in the data folder. */
function resolveSessionSecret(
  given: string | undefined,
  production: boolean,
  dataDir: string,
  notices: string[],
): string {
  if (given) {
    if (given.length < 32) throw new ConfigError('SESSION_SECRET must be at least 32 characters long');
    return given;
  }
  if (production) throw new ConfigError('SESSION_SECRET is required when NODE_ENV=production');
  const file = join(dataDir, 'session-secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(32).toString('base64url');
  writeFileSync(file, secret + '\n', { mode: 0o600 });
  notices.push(`SESSION_SECRET is not set: generated one and kept it in ${file}`);
  return secret;
}

/**
 * Resolve the configuration from code options over environment variables over defaults.
 * Throws ConfigError with a one-line message for anything it cannot use.
 */
export function loadConfig(
  options: CitadelOptions = {},
  notices: string[] = [],
  knownActions?: readonly KnownAction[],
): CitadelConfig {
  const { env: givenEnv, clock: _clock, ...settings } = options;
  const env = givenEnv ?? process.env;
  const production = options.production ?? env.NODE_ENV === 'production';
  const port = options.port ?? integer('PORT', env.PORT, 0) ?? 3000;
  const host = options.host ?? env.HOST ?? '127.0.0.1';
  let appUrl = (options.appUrl ?? env.APP_URL ?? `http://localhost:${port}`).replace(/\/+$/, '');
  let parsedAppUrl: URL;
  try {
    parsedAppUrl = new URL(appUrl);
  } catch {
    throw new ConfigError(`APP_URL is not a valid URL: "${appUrl}"`);
  }
  const basePath = resolveBasePath(options.basePath, parsedAppUrl);
  // Emailed links and OAuth redirect URIs are built from appUrl: they must carry the mount path.
  if (!parsedAppUrl.pathname.replace(/\/+$/, '').endsWith(basePath)) appUrl += basePath;
  const appName = (options.appName ?? env.APP_NAME ?? 'Citadel').trim();
  if (appName === '' || appName.length > 64 || /[\r\n]/.test(appName))
    throw new ConfigError('APP_NAME must be 1 to 64 characters on one line');
  const dataDir = resolve(options.dataDir ?? env.CITADEL_DATA_DIR ?? './data');
  const databaseUrl = options.databaseUrl ?? env.DATABASE_URL ?? `sqlite:${join(dataDir, 'citadel.sqlite')}`;
  parseDatabaseUrl(databaseUrl); // throws ConfigError when unparsable

  const logLevel = (options.logLevel ?? env.LOG_LEVEL ?? 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel))
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);

  const smtpUrl = options.smtpUrl ?? (env.SMTP_URL || undefined);
  if (smtpUrl && !/^smtps?:\/\//.test(smtpUrl))
    throw new ConfigError(`SMTP_URL must start with smtp:// or smtps://`);
  // The log transport writes sign-in links and codes into the log: fine locally, a risk in production.
  if (!smtpUrl && !options.mail && production)
    notices.push('SMTP_URL is not set: emails, with their links and codes, are written to the log');

  const limits = { ...defaultLimits, ...options.limits };

  const loginActions = options.loginActions ?? list(env.AUTH_LOGIN_ACTIONS);
  const registerActions = options.registerActions ?? list(env.AUTH_REGISTER_ACTIONS);
  if (knownActions) {
    checkActionIds('AUTH_LOGIN_ACTIONS', loginActions, knownActions);
    checkActionIds('AUTH_REGISTER_ACTIONS', registerActions, knownActions);
  }

  const registerHideExisting =
    options.registerHideExisting ?? ['1', 'true'].includes((env.REGISTER_HIDE_EXISTING ?? '').toLowerCase());
  // Without activation a new registration signs in at once: a known address could not look the same.
  if (registerHideExisting && !registerActions.includes('email_activation'))
    throw new ConfigError('REGISTER_HIDE_EXISTING needs email_activation in AUTH_REGISTER_ACTIONS');

  const sqidsMinLength = options.sqidsMinLength ?? integer('SQIDS_MIN_LENGTH', env.SQIDS_MIN_LENGTH, 0) ?? 8;
  const sqidsAlphabet = options.sqidsAlphabet ?? (env.SQIDS_ALPHABET || undefined);
  if (
    sqidsAlphabet !== undefined &&
    (sqidsAlphabet.length < 3 || new Set(sqidsAlphabet).size !== sqidsAlphabet.length)
  ) {
    throw new ConfigError('SQIDS_ALPHABET must hold at least 3 characters, each once');
  }
  const metricsToken = options.metricsToken ?? (env.METRICS_TOKEN || undefined);
  if (metricsToken !== undefined && metricsToken.length < 16)
    throw new ConfigError('METRICS_TOKEN must be at least 16 characters');
  const eventRetentionDays =
    options.eventRetentionDays ?? integer('EVENT_RETENTION_DAYS', env.EVENT_RETENTION_DAYS, 1) ?? 180;
  if (!Number.isInteger(eventRetentionDays) || eventRetentionDays < 1)
    throw new ConfigError(
      `eventRetentionDays must be a whole number of at least 1, got ${String(eventRetentionDays)}`,
    );
  const seedDemo = options.seedDemo ?? (env.SEED_DEMO ?? '1') !== '0';
  if (options.openapi !== undefined) parseOpenApiVersion(options.openapi, 'openapi');

  return {
    ...settings,
    env,
    port,
    host,
    appUrl,
    basePath,
    appName,
    stylesheet: options.stylesheet,
    databaseUrl,
    sessionSecret: resolveSessionSecret(
      options.sessionSecret ?? env.SESSION_SECRET,
      production,
      dataDir,
      notices,
    ),
    smtpUrl: options.mail ? undefined : smtpUrl,
    mail: options.mail,
    emails: options.emails,
    mailFrom: options.mailFrom ?? env.MAIL_FROM ?? `${displayName(appName)} <no-reply@localhost>`,
    loginActions,
    registerActions,
    registerHideExisting,
    redisUrl: options.redisUrl ?? (env.REDIS_URL || undefined),
    sqidsAlphabet,
    sqidsMinLength,
    sqidsPerResource:
      options.sqidsPerResource ?? !['0', 'false'].includes((env.SQIDS_PER_RESOURCE ?? '').toLowerCase()),
    seedDemo,
    logLevel,
    dataDir,
    production,
    limits,
    migrations: options.migrations ?? [],
    secureCookies: parsedAppUrl.protocol === 'https:',
    trustProxy: parseTrustProxy(options.trustProxy ?? env.TRUST_PROXY),
    metricsToken,
    eventRetentionDays,
  };
}

/** APP_NAME as an email display name: quoted when it holds anything but atom text (`Acme, Inc.`). */
function displayName(name: string): string {
  return /^[\w !#$%&'*+\-/=?^`{|}~]+$/.test(name) ? name : `"${name.replace(/["\\]/g, '\\$&')}"`;
}

/** Every listed action id must be one the plugins or the application registered (not an automatic one). */
function checkActionIds(name: string, ids: readonly string[], known: readonly KnownAction[]): void {
  for (const id of ids) {
    const action = known.find((a) => a.id === id);
    if (action?.automatic) throw new ConfigError(`${name}: ${id} is added automatically, do not list it`);
    if (!action) {
      const names = known.filter((a) => !a.automatic).map((a) => a.id);
      throw new ConfigError(`${name}: unknown action id "${id}" (known: ${names.join(', ')})`);
    }
  }
}

/** A mount path is empty or `/segment[/segment...]`, without a trailing slash. */
function resolveBasePath(given: string | undefined, appUrl: URL): string {
  const path = (given ?? appUrl.pathname).replace(/\/+$/, '');
  if (path !== '' && !/^(\/[A-Za-z0-9._~-]+)+$/.test(path))
    throw new ConfigError(`basePath must look like /auth, got "${path}"`);
  return path;
}
