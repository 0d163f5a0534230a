import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { ConfigError } from './core/errors.ts';
import type { CitadelOptions } from './config/types.ts';
import { loadConfig } from './config/load.ts';
import { openDatabase } from './db/open.ts';
import { migrateToLatest } from './db/migrate.ts';
import { redactUrl } from './db/url.ts';
import { isClusterPrimary, parseWorkerCount, runPrimary } from './ops/cluster.ts';
import { exitGracefullyOnSignals } from './ops/shutdown.ts';
import { MissingDependencyError } from './core/optional-dependency.ts';

const HELP = `citadel: authentication server and resource API engine

Usage:
  citadel serve [--config FILE] [--workers N]   migrate, then serve on HOST:PORT (default 127.0.0.1:3000)
                                                with N processes (WORKERS; 0 = one per core; default 1)
  citadel migrate [--config FILE]               apply pending database migrations
  citadel make:resource <name> [--dir DIR]      write a resource configuration skeleton
  citadel make:migration <name> [--dir DIR]     write a migration skeleton (default dir: migrations)
  citadel openapi --api-version <v> [--openapi 3.1] [--config FILE]
                                                print the OpenAPI document of one API version
  citadel openapi --auth [--openapi 3.1] [--config FILE]
                                                print the OpenAPI document of the auth endpoints
  citadel check [--strict] [--config FILE]      list missing messages per language, and declared fields and relation keys without an index
                                                (--strict: exit 1 when any is missing)
  citadel keys:rotate [--config FILE]           add a service-token signing key (the old one stays
                                                published until its last token expires)
  citadel admin:grant <email> [--config FILE]   give the account with this email the admin role
  citadel --help

Configuration comes from environment variables (see README) and, when present, from
citadel.config.ts, .mjs or .js in the current folder (or --config FILE), whose default export
is the object createServer() accepts. A .ts config needs Node.js 23.6+ (its own type stripping;
22.6+ with NODE_OPTIONS=--experimental-strip-types); on older versions, compile it to .js.`;

class UsageError extends Error {}

/**
 * Whether this process can import a `.ts` module: the repository's own command line runs under tsx
 * (`bin/citadel.mjs` in a checkout), and Node.js strips types itself from 23.6 (22.6 with
 * `--experimental-strip-types`), which `process.features.typescript` reports. Citadel brings no
 * TypeScript loader of its own.
 */
export function canImportTypeScript(): boolean {
  if (process.env.CITADEL_TS_LOADER === '1') return true;
  const features = process.features as { typescript?: string | false };
  return typeof features.typescript === 'string';
}

/** The config files looked for in the current folder, in order, when --config is not given. */
const DEFAULT_CONFIGS = ['citadel.config.ts', 'citadel.config.mjs', 'citadel.config.js'];

/**
 * The config file to load: --config FILE, else the first of citadel.config.ts (where this Node.js
 * runs TypeScript), .mjs, .js in the current folder; none is fine (environment variables only).
 * A TypeScript config this Node.js cannot run is one line saying what to do instead.
 */
export function configPath(
  given: string | undefined,
  typescript = canImportTypeScript(),
  dir = '.',
): string | null {
  const typeScriptOnly = (path: string) =>
    new ConfigError(
      `${path} is TypeScript, which Node.js ${process.versions.node} cannot load without a loader: ` +
        'compile it to citadel.config.js (or .mjs), or use Node.js 23.6+ (22.6+ with NODE_OPTIONS=--experimental-strip-types)',
    );
  if (given) {
    const path = resolve(dir, given);
    if (!existsSync(path)) throw new ConfigError(`config file not found: ${path}`);
    if (/\.[cm]?ts$/.test(path) && !typescript) throw typeScriptOnly(path);
    return path;
  }
  const found = DEFAULT_CONFIGS.map((name) => resolve(dir, name)).filter((path) => existsSync(path));
  const usable = found.find((path) => typescript || !path.endsWith('.ts'));
  if (usable) return usable;
  if (found[0]) throw typeScriptOnly(found[0]);
  return null;
}

/** `citadel openapi --auth`: the auth endpoints' document, from the configured plugins' declarations. */
async function printAuthOpenApi(options: CitadelOptions, openapi: string | undefined): Promise<void> {
  const [
    { knownActions, resolvePlugins },
    { buildAuthOpenApiDocument },
    { parseOpenApiVersion },
    { authEndpointGroups },
    { pluginRateLimits },
  ] = await Promise.all([
    import('./app/assembly.ts'),
    import('./auth/core/endpoint-openapi.ts'),
    import('./core/openapi.ts'),
    import('./auth/core/plugin-host.ts'),
    import('./auth/core/plugin-limit-routes.ts'),
  ]);
  const plugins = resolvePlugins(options);
  const config = loadConfig(options, [], knownActions(plugins, options));
  const { SESSION_COOKIE } = await import('./http/sessions/plugin.ts');
  const document = buildAuthOpenApiDocument(authEndpointGroups(plugins, config.api?.apiBaseUrl ?? null), {
    title: config.appName,
    serverUrl: config.basePath || '/',
    cookieName: SESSION_COOKIE,
    openapi: openapi === undefined ? config.openapi : parseOpenApiVersion(openapi, '--openapi'),
    rateLimits: pluginRateLimits(plugins),
  });
  process.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
}

async function loadOptions(given: string | undefined): Promise<CitadelOptions> {
  const path = configPath(given);
  if (!path) return {};
  const module = (await import(pathToFileURL(path).href)) as {
    default?: CitadelOptions | (() => CitadelOptions | Promise<CitadelOptions>);
  };
  const exported = module.default;
  if (!exported) throw new ConfigError(`${path} has no default export`);
  return typeof exported === 'function' ? await exported() : exported;
}

async function serve(configPath: string | undefined, workersFlag: string | undefined): Promise<void> {
  const workers = parseWorkerCount(workersFlag ?? process.env.WORKERS);
  if (workers === undefined)
    throw new ConfigError('--workers / WORKERS must be a whole number (0 = one per core)');
  if (workers > 1 && isClusterPrimary()) {
    if (!(await runPrimary(workers))) process.exit(1);
    return;
  }
  const { createServer } = await import('./app/server.ts');
  const server = await createServer(await loadOptions(configPath));
  const address = await server.app.listen({ port: server.config.port, host: server.config.host });
  server.app.log.info(`Citadel listening on ${address}`);
  // Passkeys need a domain (WebAuthn refuses an IP address): open the public URL, not the address.
  server.app.log.info(`Open ${server.config.appUrl} in your browser`);
  exitGracefullyOnSignals(server);
}

async function migrate(configPath: string | undefined): Promise<void> {
  // Loaded here, not at the top: the plugins bring every capability's code, which --help does not need.
  const { citadelMigrations, knownActions, resolvePlugins } = await import('./app/assembly.ts');
  const options = await loadOptions(configPath);
  const plugins = resolvePlugins(options);
  const config = loadConfig(options, [], knownActions(plugins, options));
  const database = await openDatabase(config.databaseUrl);
  try {
    const { applied } = await migrateToLatest(database.db, database.dialect, [
      ...citadelMigrations(plugins),
      ...config.migrations,
    ]);
    console.log(applied.length ? `applied: ${applied.join(', ')}` : 'nothing to migrate');
  } finally {
    await database.close();
  }
}

/** Run `work` on the configured database, its migrations applied first (as `serve` does). */
async function withDatabase(
  configPath: string | undefined,
  work: (context: {
    db: import('kysely').Kysely<import('./db/schema.ts').Database>;
    config: import('./config/types.ts').CitadelConfig;
    plugins: import('./auth/core/plugin.ts').CitadelPlugin[];
  }) => Promise<void>,
): Promise<void> {
  const { citadelMigrations, knownActions, resolvePlugins } = await import('./app/assembly.ts');
  const options = await loadOptions(configPath);
  const plugins = resolvePlugins(options);
  const config = loadConfig(options, [], knownActions(plugins, options));
  const database = await openDatabase(config.databaseUrl);
  try {
    await migrateToLatest(database.db, database.dialect, [
      ...citadelMigrations(plugins),
      ...config.migrations,
    ]);
    await work({ db: database.db, config, plugins });
  } finally {
    await database.close();
  }
}

/** `citadel keys:rotate`: a new service-token signing key. */
async function rotateKeys(configPath: string | undefined): Promise<void> {
  await withDatabase(configPath, async ({ db, config, plugins }) => {
    const plugin = plugins.find((candidate) => candidate.id === 'service-tokens');
    if (!plugin) throw new ConfigError('the service-tokens plugin is not among the configured plugins');
    // The options it runs with (given, then the environment, then the defaults).
    const options = (plugin.resolveOptions?.(config) ?? plugin.options) as
      { ttlSeconds?: number } | undefined;
    const [{ rotateSigningKeys }, { SecretBox }, { systemClock }] = await Promise.all([
      import('./auth/service-tokens/keys.ts'),
      import('./core/crypto.ts'),
      import('./core/clock.ts'),
    ]);
    const kids = await rotateSigningKeys(
      db,
      systemClock,
      new SecretBox(config.sessionSecret),
      options?.ttlSeconds ?? 900,
    );
    for (const kid of kids)
      console.log(`signing key ${kid} added; the previous key stays published until its last token expires`);
  });
}

/** `citadel admin:grant <email>`: the admin role for that account. */
async function grantAdmin(configPath: string | undefined, email: string): Promise<void> {
  await withDatabase(configPath, async ({ db }) => {
    const { grantAdminRole } = await import('./auth/core/roles.ts');
    if (!(await grantAdminRole(db, email))) throw new UsageError(`no account with the email ${email}`);
    console.log(`${email.trim().toLowerCase()} is now an admin`);
  });
}

export async function main(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      help: { type: 'boolean', short: 'h' },
      config: { type: 'string' },
      'api-version': { type: 'string' },
      auth: { type: 'boolean' },
      openapi: { type: 'string' },
      dir: { type: 'string' },
      workers: { type: 'string' },
      strict: { type: 'boolean' },
    },
  });
  const [command, ...rest] = positionals;
  if (values.help || !command) {
    console.log(HELP);
    return;
  }
  switch (command) {
    case 'serve':
      return serve(values.config, values.workers);
    case 'migrate':
      return migrate(values.config);
    case 'make:resource': {
      const { makeResource } = await import('./api/cli/make-resource.ts');
      if (!rest[0]) throw new UsageError('make:resource needs a resource name');
      await makeResource(rest[0], values.dir ?? '.');
      return;
    }
    case 'make:migration': {
      const { makeMigration } = await import('./db/make-migration.ts');
      if (!rest[0]) throw new UsageError('make:migration needs a migration name');
      await makeMigration(rest[0], values.dir ?? 'migrations');
      return;
    }
    case 'openapi': {
      if (values.auth) return printAuthOpenApi(await loadOptions(values.config), values.openapi);
      const { printOpenApi } = await import('./api/cli/openapi.ts');
      if (!values['api-version']) throw new UsageError('openapi needs --api-version <version>');
      return printOpenApi(await loadOptions(values.config), values['api-version'], undefined, values.openapi);
    }
    case 'check': {
      const options = await loadOptions(values.config);
      process.exitCode = await (await import('./api/cli/check.ts')).runCheck(options, values.strict ?? false);
      // Then the keys each language lacks (shown in English until translated).
      for (const line of (await import('./app/language-check.ts')).languageReport(options)) console.log(line);
      return;
    }
    case 'keys:rotate':
      return rotateKeys(values.config);
    case 'admin:grant':
      if (!rest[0]) throw new UsageError('admin:grant needs an email address');
      return grantAdmin(values.config, rest[0]);
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

/** One line and exit code 1 for anything that stops the command; never a stack trace. */
function describe(error: unknown): string {
  if (error instanceof ConfigError) return `configuration error: ${error.message}`;
  if (error instanceof MissingDependencyError) return error.message;
  if (error instanceof UsageError) return `${error.message} (see citadel --help)`;
  const e = error as { code?: string; message?: string };
  if (
    e.code === 'ECONNREFUSED' ||
    e.code === 'ENOTFOUND' ||
    e.code === 'ER_ACCESS_DENIED_ERROR' ||
    e.code === '28P01' ||
    e.code === '3D000'
  ) {
    return `could not connect to the database: ${redactUrl(e.message ?? String(e.code))}`;
  }
  if (e.code === 'EADDRINUSE') return `cannot listen: ${e.message}`;
  return `error: ${redactUrl(e.message ?? String(error))}`;
}

const invokedDirectly = process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href;
if (invokedDirectly || process.env.CITADEL_CLI === '1') {
  main(process.argv.slice(2)).catch((error: unknown) => {
    console.error(`citadel: ${describe(error)}`);
    process.exit(1);
  });
}
