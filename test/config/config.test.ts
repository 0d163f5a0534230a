// Dialect-independent: pure functions, no database; `npm test` runs it with the first database only.
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultLimits, loadConfig } from '../../src/config/load.ts';
import { ConfigError } from '../../src/core/errors.ts';
import type { CitadelOptions } from '../../src/config/types.ts';
import { knownActions, resolvePlugins } from '../../src/app/assembly.ts';
import { resolvePluginOptions } from '../../src/auth/core/plugin-options.ts';
import type { SocialOptions } from '../../src/auth/social/options.ts';
import type { SudoOptions } from '../../src/auth/sudo/options.ts';
import { defaultPlugins } from '../../src/auth/index.ts';
import { parseDatabaseUrl, redactUrl } from '../../src/db/url.ts';

const SECRET = 'x'.repeat(40);
const dataDir = () => mkdtempSync(join(tmpdir(), 'citadel-config-'));

/**
 * The configuration as createServer() loads it: knowing the built-in plugins' actions, then the
 * built-ins' options resolved from it (where their environment variables are read).
 */
function load(options: CitadelOptions) {
  const config = loadConfig(options, [], knownActions(defaultPlugins(), options));
  const plugins = resolvePluginOptions(resolvePlugins(options), config);
  return Object.assign(config, { pluginOptions: plugins });
}

/** The options built-in `id` runs with under `options`. */
function optionsOf<T>(id: string, options: CitadelOptions): T {
  return load(options).pluginOptions.get(id) as T;
}

function configError(env: Record<string, string>, options = {}): string {
  try {
    load({ env: { SESSION_SECRET: SECRET, ...env }, dataDir: dataDir(), ...options });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).not.toContain('\n');
    return message;
  }
  throw new Error('expected a ConfigError');
}

describe('configuration', () => {
  it('defaults (contract section 2)', () => {
    const dir = dataDir();
    const config = loadConfig({ env: {}, dataDir: dir });
    expect(config).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      appUrl: 'http://localhost:3000',
      databaseUrl: `sqlite:${join(dir, 'citadel.sqlite')}`,
      mailFrom: 'Citadel <no-reply@localhost>',
      loginActions: [],
      registerActions: [],
      sqidsMinLength: 8,
      seedDemo: true,
      logLevel: 'info',
      production: false,
      secureCookies: false,
    });
    expect(config.smtpUrl).toBeUndefined();
    expect(config.redisUrl).toBeUndefined();
    expect(config.limits).toEqual(defaultLimits);
    expect(config.limits).toMatchObject({
      rememberTtl: 2592000,
      sendsPerAddress: 5,
      sendsPerIp: 30,
      passwordMinLength: 8,
      passwordMaxLength: 256,
      tokenLastUsedInterval: 60,
    });
    // The built-ins' own settings are their options, with the contract's defaults.
    const options = load({ env: {}, dataDir: dir }).pluginOptions;
    expect(options.get('sudo')).toEqual({ ttlSeconds: 900, maxFailures: 5, failureWindowSeconds: 900 });
    expect(options.get('magic-link')).toEqual({ ttlSeconds: 900 });
    expect(options.get('accounts')).toEqual({
      resetTokenTtlSeconds: 3600,
      loginFailuresPerIdentifierIp: 5,
      loginFailureWindowSeconds: 60,
      loginFailuresPerAccount: 100,
      loginAccountWindowSeconds: 3600,
    });
    expect(options.get('pipeline')).toEqual({
      codeTtlSeconds: 600,
      codeResendIntervalSeconds: 30,
      maxCodeAttempts: 5,
    });
    expect(options.get('social')).toEqual({ providers: [] });
    expect(options.get('factors')).toEqual({
      requireTwoFactor: false,
      confirmMaxFailures: 5,
      confirmFailureWindowSeconds: 900,
    });
    expect(options.get('account-center')).toEqual({});
  });

  it('outside production a session secret is generated once, kept in the data folder, with a notice', () => {
    const dir = dataDir();
    const notices: string[] = [];
    const first = loadConfig({ env: {}, dataDir: dir }, notices);
    expect(first.sessionSecret.length).toBeGreaterThanOrEqual(32);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toContain('SESSION_SECRET');
    const file = join(dir, 'session-secret');
    expect(readFileSync(file, 'utf8').trim()).toBe(first.sessionSecret);
    expect(statSync(file).mode & 0o077).toBe(0);
    const again: string[] = [];
    expect(loadConfig({ env: {}, dataDir: dir }, again).sessionSecret).toBe(first.sessionSecret);
    expect(again).toEqual([]);
  });

  it('warns in production when mail would go to the log', () => {
    const notices: string[] = [];
    loadConfig({ env: { NODE_ENV: 'production', SESSION_SECRET: SECRET }, dataDir: dataDir() }, notices);
    expect(notices).toEqual([expect.stringContaining('SMTP_URL is not set')]);
    const none: string[] = [];
    loadConfig(
      {
        env: { NODE_ENV: 'production', SESSION_SECRET: SECRET, SMTP_URL: 'smtp://m:25' },
        dataDir: dataDir(),
      },
      none,
    );
    expect(none).toEqual([]);
  });

  it('reads the environment', () => {
    const config = load({
      dataDir: dataDir(),
      env: {
        PORT: '8080',
        HOST: '0.0.0.0',
        APP_URL: 'https://auth.example.com/',
        DATABASE_URL: 'postgres://u:p@db.example.com/citadel',
        SESSION_SECRET: SECRET,
        SMTP_URL: 'smtp://mail.example.com:587',
        MAIL_FROM: 'Auth <auth@example.com>',
        AUTH_LOGIN_ACTIONS: 'email_2fa',
        AUTH_REGISTER_ACTIONS: ' email_activation ',
        SUDO_TTL: '600',
        REDIS_URL: 'redis://cache:6379',
        SQIDS_MIN_LENGTH: '10',
        SEED_DEMO: '0',
        LOG_LEVEL: 'warn',
        NODE_ENV: 'production',
      },
    });
    expect(config).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      appUrl: 'https://auth.example.com',
      databaseUrl: 'postgres://u:p@db.example.com/citadel',
      sessionSecret: SECRET,
      smtpUrl: 'smtp://mail.example.com:587',
      mailFrom: 'Auth <auth@example.com>',
      loginActions: ['email_2fa'],
      registerActions: ['email_activation'],
      redisUrl: 'redis://cache:6379',
      sqidsMinLength: 10,
      seedDemo: false,
      logLevel: 'warn',
      production: true,
      secureCookies: true,
    });
    expect(config.pluginOptions.get('sudo')).toMatchObject({ ttlSeconds: 600 });
    expect(config.appUrl).toBe('https://auth.example.com');
  });

  it('APP_URL defaults to the port', () => {
    expect(loadConfig({ env: { PORT: '4000', SESSION_SECRET: SECRET }, dataDir: dataDir() }).appUrl).toBe(
      'http://localhost:4000',
    );
  });

  it('code options win over the environment; limits are configurable', () => {
    const codeOptions: CitadelOptions = {
      env: { PORT: '8080', SESSION_SECRET: SECRET, SUDO_TTL: '600' },
      port: 9000,
      plugins: defaultPlugins({ sudo: { ttlSeconds: 60 } }),
      limits: { sendsPerAddress: 2, rememberTtl: 100 },
    };
    const config = load({ ...codeOptions, dataDir: dataDir() });
    expect(config.port).toBe(9000);
    expect(optionsOf<SudoOptions>('sudo', { ...codeOptions, dataDir: dataDir() }).ttlSeconds).toBe(60);
    expect(config.limits.sendsPerAddress).toBe(2);
    expect(config.limits.rememberTtl).toBe(100);
    expect(config.limits.sendsPerIp).toBe(30);
  });

  it("environment variables feed the built-ins' options; options given to a factory win", () => {
    const env = {
      SESSION_SECRET: SECRET,
      SUDO_TTL: '600',
      REQUIRE_TWO_FACTOR: '1',
      EVENT_RETENTION_DAYS: '30',
      OAUTH_PROVIDERS: 'github',
      OAUTH_GITHUB_CLIENT_ID: 'gid',
      OAUTH_GITHUB_CLIENT_SECRET: 'gsecret',
    };
    const fromEnv = load({ env, dataDir: dataDir() }).pluginOptions;
    expect(fromEnv.get('sudo')).toMatchObject({ ttlSeconds: 600 });
    expect(fromEnv.get('factors')).toMatchObject({ requireTwoFactor: true });
    expect(load({ env, dataDir: dataDir() }).eventRetentionDays).toBe(30);
    expect((fromEnv.get('social') as SocialOptions).providers.map((p) => p.id)).toEqual(['github']);

    const plugins = defaultPlugins({
      sudo: { ttlSeconds: 120 },
      factors: { requireTwoFactor: false },
      social: { providers: [] },
      magicLink: { ttlSeconds: 300 },
    });
    const given = load({ env, dataDir: dataDir(), plugins }).pluginOptions;
    expect(given.get('sudo')).toMatchObject({ ttlSeconds: 120 });
    expect(given.get('factors')).toMatchObject({ requireTwoFactor: false });
    expect(load({ env, dataDir: dataDir(), eventRetentionDays: 7 }).eventRetentionDays).toBe(7);
    expect(given.get('social')).toEqual({ providers: [] });
    expect(given.get('magic-link')).toEqual({ ttlSeconds: 300 });
  });

  it("the built-ins' own limits are options of their factories, never read from `limits`", () => {
    const limits = { magicLinkTtl: 120, sudoTtl: 200, loginFailuresPerIdentifierIp: 2 };
    const options = load({
      env: {},
      dataDir: dataDir(),
      limits: limits as unknown as CitadelOptions['limits'],
    }).pluginOptions;
    expect(options.get('magic-link')).toEqual({ ttlSeconds: 900 });
    expect(options.get('sudo')).toMatchObject({ ttlSeconds: 900 });
    expect(options.get('accounts')).toMatchObject({ loginFailuresPerIdentifierIp: 5 });
  });

  it('a factory option it cannot use stops start-up with one line', () => {
    expect(configError({}, { plugins: defaultPlugins({ magicLink: { ttlSeconds: 0 } }) })).toBe(
      'magicLink: ttlSeconds must be a whole number of at least 1, got 0',
    );
    expect(configError({}, { plugins: defaultPlugins({ sudo: { ttlSeconds: 1.5 } }) })).toBe(
      'sudo: ttlSeconds must be a whole number of at least 1, got 1.5',
    );
    expect(configError({ EVENT_RETENTION_DAYS: 'soon' })).toBe(
      'EVENT_RETENTION_DAYS must be a whole number of at least 1, got "soon"',
    );
    // The account center's former option names the core setting that replaced it.
    expect(configError({}, { plugins: defaultPlugins({ accountCenter: { eventRetentionDays: 7 } }) })).toBe(
      "accountCenter: eventRetentionDays is a core setting now: set eventRetentionDays: 7 in the server's options (or EVENT_RETENTION_DAYS)",
    );
  });

  it('OAuth providers from the environment, with presets for github and google', () => {
    const { providers } = optionsOf<SocialOptions>('social', {
      dataDir: dataDir(),
      env: {
        SESSION_SECRET: SECRET,
        OAUTH_PROVIDERS: 'github,acme',
        OAUTH_GITHUB_CLIENT_ID: 'gid',
        OAUTH_GITHUB_CLIENT_SECRET: 'gsecret',
        OAUTH_ACME_CLIENT_ID: 'aid',
        OAUTH_ACME_CLIENT_SECRET: 'asecret',
        OAUTH_ACME_ISSUER: 'https://id.acme.test',
      },
    });
    expect(providers.map((p) => p.id)).toEqual(['github', 'acme']);
    expect(providers[0]).toMatchObject({ label: 'GitHub', clientId: 'gid' });
    expect(providers[1]).toMatchObject({
      issuer: 'https://id.acme.test',
      scopes: ['openid', 'email', 'profile'],
    });
  });

  it.each([
    [{ DATABASE_URL: 'not a url' }, 'DATABASE_URL'],
    [{ DATABASE_URL: 'oracle://db/x' }, 'unsupported scheme'],
    [{ DATABASE_URL: 'sqlite:' }, 'SQLite path'],
    [{ NODE_ENV: 'production', SESSION_SECRET: '' }, 'SESSION_SECRET is required when NODE_ENV=production'],
    [{ SESSION_SECRET: 'too-short' }, 'at least 32 characters'],
    [{ AUTH_LOGIN_ACTIONS: 'email_2fa,nope' }, 'AUTH_LOGIN_ACTIONS: unknown action id "nope"'],
    [{ AUTH_REGISTER_ACTIONS: 'bogus' }, 'AUTH_REGISTER_ACTIONS: unknown action id "bogus"'],
    [{ AUTH_LOGIN_ACTIONS: 'two_factor' }, 'two_factor is added automatically'],
    [{ PORT: 'eighty' }, 'PORT must be a whole number'],
    [{ SUDO_TTL: '0' }, 'SUDO_TTL'],
    [{ APP_URL: 'nope' }, 'APP_URL is not a valid URL'],
    [{ SMTP_URL: 'http://mail' }, 'SMTP_URL'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ OAUTH_PROVIDERS: 'acme' }, 'OAUTH_ACME_CLIENT_ID'],
    [
      { OAUTH_PROVIDERS: 'acme', OAUTH_ACME_CLIENT_ID: 'a', OAUTH_ACME_CLIENT_SECRET: 'b' },
      'needs an issuer',
    ],
    [{ SQIDS_ALPHABET: 'aab' }, 'SQIDS_ALPHABET'],
  ])('%j -> one-line ConfigError', (env, expected) => {
    expect(configError(env as Record<string, string>)).toContain(expected);
  });

  it('a custom action id is known once registered in code', () => {
    const action = { id: 'company_policy' } as never;
    expect(
      load({
        env: { AUTH_LOGIN_ACTIONS: 'company_policy', SESSION_SECRET: SECRET },
        dataDir: dataDir(),
        actions: [action],
      }).loginActions,
    ).toEqual(['company_policy']);
  });

  it('database URLs: dialects and redaction', () => {
    expect(parseDatabaseUrl('sqlite::memory:')).toEqual({ dialect: 'sqlite', target: ':memory:' });
    expect(parseDatabaseUrl('sqlite:./data/x.sqlite')).toEqual({
      dialect: 'sqlite',
      target: './data/x.sqlite',
    });
    expect(parseDatabaseUrl('postgresql://h/db').dialect).toBe('postgres');
    expect(parseDatabaseUrl('mariadb://h/db')).toEqual({ dialect: 'mysql', target: 'mysql://h/db' });
    expect(redactUrl('postgres://user:hunter2@host/db')).toBe('postgres://user:***@host/db');
    const message = configError({ DATABASE_URL: 'postgres://user:hunter2@host:notaport/db' });
    expect(message).not.toContain('hunter2');
  });
});
