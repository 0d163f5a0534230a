import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { ConfigError } from './config/errors.ts';
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
  citadel check [--strict] [--config FILE]      list declared fields and relation keys without an index
                                                (--strict: exit 1 when any is missing)
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
    { clientRoutesEndpoint },
  ] = await Promise.all([
    import('./assembly.ts'),
    import('./auth/core/endpoint-openapi.ts'),
    import('./core/openapi.ts'),
    import('./auth/core/client-routes.ts'),
  ]);
  const plugins = resolvePlugins(options);
  const config = loadConfig(options, [], knownActions(plugins, options));
  const { SESSION_COOKIE } = await import('./http/sessions/plugin.ts');
  const clientRoutes = clientRoutesEndpoint(
    plugins.flatMap((plugin) => plugin.endpoints ?? []),
    config.api?.apiBaseUrl ?? null,
  );
  const document = buildAuthOpenApiDocument(
    [
      ...plugins.map((plugin) => ({ name: plugin.id, endpoints: plugin.endpoints ?? [] })),
      { name: 'client', endpoints: [clientRoutes] },
    ],
    {
      title: config.appName,
      serverUrl: config.basePath || '/',
      cookieName: SESSION_COOKIE,
      openapi: openapi === undefined ? config.openapi : parseOpenApiVersion(openapi, '--openapi'),
    },
  );
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
  const { createServer } = await import('./server.ts');
  const server = await createServer(await loadOptions(configPath));
  const address = await server.app.listen({ port: server.config.port, host: server.config.host });
  server.app.log.info(`Citadel listening on ${address}`);
  // Passkeys need a domain (WebAuthn refuses an IP address): open the public URL, not the address.
  server.app.log.info(`Open ${server.config.appUrl} in your browser`);
  exitGracefullyOnSignals(server);
}

async function migrate(configPath: string | undefined): Promise<void> {
  // Loaded here, not at the top: the plugins bring every capability's code, which --help does not need.
  const { citadelMigrations, knownActions, resolvePlugins } = await import('./assembly.ts');
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
    case 'check':
      process.exitCode = await (
        await import('./api/cli/check.ts')
      ).runCheck(await loadOptions(values.config), values.strict ?? false);
      return;
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
