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
import { importOptional, MissingDependencyError } from './core/optional-dependency.ts';

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
citadel.config.ts in the current folder (or --config FILE), whose default export is the
object createServer() accepts.`;

class UsageError extends Error {}

/**
 * A TypeScript config file needs a loader when Citadel itself runs compiled (the installed
 * package); tsx is the only thing it is used for.
 */
async function registerTypeScriptLoader(): Promise<void> {
  if (process.env.CITADEL_TS_LOADER === '1') return;
  const { register } = await importOptional('tsx', 'A TypeScript config file', () => import('tsx/esm/api'));
  register();
  process.env.CITADEL_TS_LOADER = '1';
}

/** The application's config module: --config FILE, else ./citadel.config.ts when it exists. */
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
      ...plugins.map((plugin) => ({ name: plugin.name, endpoints: plugin.endpoints ?? [] })),
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

async function loadOptions(configPath: string | undefined): Promise<CitadelOptions> {
  const path = resolve(configPath ?? 'citadel.config.ts');
  if (!existsSync(path)) {
    if (configPath) throw new ConfigError(`config file not found: ${path}`);
    return {};
  }
  if (/\.[cm]?ts$/.test(path)) await registerTypeScriptLoader();
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
