import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import type { CitadelConfig } from '../config/types.ts';
import { openDatabase, type OpenDatabaseOptions } from '../db/open.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { isMariaDb } from '../db/mariadb.ts';
import { createCoreServices } from './services.ts';
import type { Clock } from '../core/clock.ts';
import { sessionPlugin } from '../http/sessions/plugin.ts';
import { verifyCsrf } from '../http/security/csrf.ts';
import { hookOf } from '../http/request/hooks.ts';
import { refuseForbiddenKeys } from '../http/request/request-keys.ts';
import { ServedPaths } from '../http/html/served-paths.ts';
import { SecretPaths } from '../http/security/logging.ts';
import { refuseDotSegments } from '../http/request/dot-segments.ts';
import { readMultipartBody } from '../http/request/multipart-body.ts';
import { registerMultipartFields } from '../http/request/multipart-fields.ts';
import { refuseLongUrls } from '../http/request/request-head.ts';
import { refuseNonJsonBodies } from '../http/request/json-only.ts';
import { authErrorHandler } from '../http/response/error-handler.ts';
import { createAuthServices, initPlugins } from '../auth/core/plugin-host.ts';
import { authCore } from '../auth/core/host-routes.ts';
import { applyPluginRateLimits, pluginRateLimits } from '../auth/core/plugin-limit-routes.ts';
import type { CitadelServices } from '../auth/core/services.ts';
import { resolvePluginOptions } from '../auth/core/plugin-options.ts';
import { pageReplacements } from '../auth/pages.ts';
import { serverLanguages } from './languages.ts';
import { rememberLanguage } from '../http/i18n/request-language.ts';
import type { CitadelPlugin } from '../auth/core/plugin.ts';
import { citadelMigrations } from './assembly.ts';
import '../api/resource/settings.ts';
import { registerOperations } from '../ops/plugin.ts';
import { citadelHelmetOptions, securityHeaders } from '../http/security/security-headers.ts';
import { knownPathAnswer } from '../http/response/allow.ts';
import { HttpError } from '../core/errors.ts';
import { assertRedisReachable } from '../ops/redis.ts';
import { shareUserChanges } from '../auth/core/user-changes.ts';

import { injectFetch } from '../embed/fetch.ts';
import './seed-setting.ts';

/** Where an in-process request (`services.fetch`) comes from. */
const LOOPBACK_ADDRESS = '127.0.0.1';

export interface MountOptions {
  config: CitadelConfig;
  plugins: readonly CitadelPlugin[];
  clock: Clock;
  /** Apply migrations first (default true). */
  migrate?: boolean;
  database?: OpenDatabaseOptions;
  /** Where the log mail transport writes (default: the instance's logger). */
  logger?: FastifyBaseLogger;
}

export interface MountedCitadel {
  /** Every service, as one plain object (what domain code and the tests use). */
  services: CitadelServices;
  redis?: Redis;
  /** Closes what Citadel opened (mail transport, Redis, database); the Fastify instance stays. */
  release(): Promise<void>;
}

/**
 * Citadel inside a Fastify instance (the root one of `createServer()`, or an encapsulated one under
 * a prefix when embedded): database (migrated), services as decorators, the HTTP layer (security
 * headers, cookies, bodies, sessions, CSRF, errors), the auth core with every plugin, then the
 * resource API.
 */
export async function mountCitadel(app: FastifyInstance, options: MountOptions): Promise<MountedCitadel> {
  const { config, plugins, clock, migrate, database: databaseOptions } = options;
  // Every plugin's options (given, then the environment, then defaults): a bad value stops
  // start-up with one line before the database is touched.
  const pluginOptions = resolvePluginOptions(plugins, config);
  const database = await openDatabase(config.databaseUrl, {
    onConnectionError: (error) =>
      app.log.warn({ err: { message: error.message } }, 'database connection lost'),
    ...databaseOptions,
  });
  if (migrate !== false) {
    await migrateToLatest(database.db, database.dialect, [
      ...citadelMigrations(plugins),
      ...config.migrations,
    ]);
  }
  // Which server a MySQL-protocol URL reaches (MariaDB has RETURNING), asked once at start so no
  // request pays for it.
  if (database.dialect === 'mysql') await isMariaDb(database.db);
  const { services: core, redis } = await createCoreServices(config, {
    db: database.db,
    dialect: database.dialect,
    clock,
    logger: options.logger ?? app.log,
  });
  // The core services are also decorators, for the HTTP layer and the resource API.
  for (const [name, service] of Object.entries(core)) app.decorate(name, service);
  if (redis && config.redisUrl) {
    await assertRedisReachable(redis, config.redisUrl).catch(async (error: unknown) => {
      await database.close();
      throw error;
    });
  }

  // An empty JSON body is an empty object: `POST /logout` with Content-Type: application/json works.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, {});
    try {
      done(null, JSON.parse(text));
    } catch {
      const error = new Error('The request body is not valid JSON.') as Error & { statusCode: number };
      error.statusCode = 400;
      done(error, undefined);
    }
  });

  // Every GET route registered from here on (auth, plugins, resource API, docs), for page links.
  const servedPaths = new ServedPaths();
  app.decorate('servedPaths', servedPaths);
  const replacements = pageReplacements(plugins, config.pages);
  app.decorate('pageReplacements', replacements);
  const languages = serverLanguages(plugins, config);
  app.decorate('languages', languages);
  core.emails.useLanguages(languages);
  // Every service as one plain object, the auth core's included: what domain code is handed.
  const services = createAuthServices(core, {
    plugins,
    log: app.log,
    servedPaths,
    pageReplacements: replacements,
    languages,
    pluginOptions,
    apiBaseUrl: config.api?.apiBaseUrl ?? null,
    // Citadel's own paths, under the prefix of the instance it is mounted in (an embedding host's).
    fetch: (request) =>
      injectFetch(app, request, { basePath: '', prefix: app.prefix, remoteAddress: LOOPBACK_ADDRESS }),
  });
  app.decorate('citadel', services);
  // Page headers are rendered by the HTTP layer (`renderPage`), which reads them from the instance.
  app.decorate('pageHeaderParts', services.pageHeaderParts);
  const basePath = config.basePath;
  // Where declared secrets sit in paths: the request log redacts them even when no route answers.
  const secretPaths = new SecretPaths();
  if (!app.hasDecorator('secretPaths')) app.decorate('secretPaths', secretPaths);
  app.addHook('onRoute', (route) => secretPaths.add(route.url, route.config?.secrets));
  app.addHook('onRoute', (route) => {
    const methods = [route.method].flat();
    if (!methods.includes('GET')) return;
    const url =
      basePath && route.url.startsWith(basePath) ? route.url.slice(basePath.length) || '/' : route.url;
    servedPaths.add(url);
  });

  // The plugins' rate-limit rules, put on every matching route registered from here on.
  applyPluginRateLimits(app, pluginRateLimits(plugins), basePath);

  // Bodies of every kind are parsed before any route is registered, and one hook then refuses
  // request keys that name a prototype on every route, ops routes included.
  if (!app.hasContentTypeParser('application/x-www-form-urlencoded')) await app.register(formbody);
  // A JSON-only route (the passkey ceremonies) refuses any other body first, unread (415).
  // One hook, in this order; no promise unless a multipart body is read.
  const ownMultipart = !app.hasContentTypeParser('multipart/form-data');
  if (ownMultipart) await registerMultipartFields(app, { fileSize: 0, files: 0 });
  app.addHook(
    'preValidation',
    ownMultipart
      ? hookOf(refuseNonJsonBodies, readMultipartBody, refuseForbiddenKeys)
      : hookOf(refuseNonJsonBodies, refuseForbiddenKeys),
  );

  // Health, readiness and metrics (sessionless routes); the metrics hook first, to time every request.
  await registerOperations(app, {
    metricsToken: config.metricsToken,
    poolUse: database.poolUse,
    readiness: { db: database.db, redis },
  });

  await app.register(securityHeaders, citadelHelmetOptions(config));
  // An embedding application may have registered these already; a second copy would clash.
  if (!app.hasDecorator('parseCookie')) await app.register(cookie);
  await app.register(sessionPlugin);
  // A request target over 32 KiB: Citadel's own 414 (with the session loaded, so a form client
  // gets the error page).
  // …and a `.` or `..` path parameter is a path no route serves (404).
  // …and a `?lang=` choice sticks: remembered in a cookie.
  app.addHook('onRequest', hookOf(refuseLongUrls, refuseDotSegments, rememberLanguage));
  app.addHook('preHandler', hookOf(verifyCsrf));
  app.setErrorHandler(authErrorHandler);
  app.setNotFoundHandler((request, reply) => {
    // A known path with another method: OPTIONS 204 or 405, both with Allow (RFC 9110).
    const known = knownPathAnswer(request, reply);
    if (known instanceof HttpError) return void authErrorHandler(known, request, reply);
    if (known) return;
    void authErrorHandler(Object.assign(new Error('Not found.'), { statusCode: 404 }), request, reply);
  });

  await app.register(authCore);
  // Each plugin's work that outlives a request (timers, sweeps), stopped by `release()` first.
  const closePlugins = await initPlugins(plugins, services).catch(async (error: unknown) => {
    await database.close();
    throw error;
  });
  if (config.seedDemo && config.seed) await config.seed(services);

  if (config.api) {
    const { resourceApi } = await import('../api/http/plugin.ts');
    await app.register(resourceApi, { api: config.api });
    await app.register((await import('../api/docs/plugin.ts')).apiDocs, { api: config.api });
  }

  // Other processes hear of changed users at once (a disabled user's service tokens stop).
  let stopSharing: (() => void) | undefined;
  if (redis) {
    const subscriber = redis.duplicate({ autoResubscribe: false });
    stopSharing = await shareUserChanges(redis, subscriber, services.users, app.log).catch(
      async (error: unknown) => {
        subscriber.disconnect();
        redis.disconnect();
        await closePlugins();
        await database.close();
        throw error;
      },
    );
  }

  return {
    services,
    redis,
    async release() {
      await closePlugins();
      core.mailer.close();
      stopSharing?.();
      redis?.disconnect();
      await database.close();
    },
  };
}
