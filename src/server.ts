import type { Redis } from 'ioredis';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import multipart from '@fastify/multipart';
import helmet from '@fastify/helmet';
import { loadConfig } from './config/load.ts';
import type { CitadelConfig, CitadelOptions } from './config/types.ts';
import { openDatabase, type OpenDatabaseOptions } from './db/open.ts';
import { migrateToLatest } from './db/migrate.ts';
import { createCoreServices } from './services.ts';
import type { CitadelServices } from './http/fastify-types.ts';
import { systemClock } from './core/clock.ts';
import { sessionPlugin } from './http/sessions/plugin.ts';
import { verifyCsrf } from './http/csrf.ts';
import { authErrorHandler } from './http/error-handler.ts';
import { redactedRequestSerializer } from './http/logging.ts';
import { authCore } from './auth/core/plugin-host.ts';
import { citadelMigrations, knownActions, resolvePlugins } from './assembly.ts';
import './api/settings.ts';

declare module './config/types.ts' {
  interface ExtensionSettings {
    /** Sample data, run after migrations when `seedDemo` is on; it decides itself whether to add anything. */
    seed?: (services: CitadelServices) => Promise<void>;
  }
}

export interface CreateServerOptions extends CitadelOptions {
  /** Fastify logger setting; default: JSON logs at the configured level. */
  logger?: FastifyServerOptions['logger'];
  /**
   * Where the default (redacted) JSON logs go; default stdout. Unlike `logger`, this keeps the
   * request serializer and redaction, so tests can read exactly what production would log.
   */
  logStream?: { write(line: string): void };
  /** Apply migrations before serving (default true). */
  migrate?: boolean;
  database?: OpenDatabaseOptions;
}

export interface CitadelServer {
  app: FastifyInstance;
  /** The Fastify instance again: its decorators (`db`, `users`, `mailer`, ...) are the services. */
  services: CitadelServices;
  config: CitadelConfig;
  /** The Redis connection when `redisUrl` is set (sessions and rate-limit counters live there). */
  redis?: Redis;
  /** Notices from start-up (for example a generated session secret). */
  notices: string[];
  close(): Promise<void>;
}

/**
 * Assemble Citadel: configuration, database (migrated), shared services, the HTTP layer, the auth
 * modules and the resource API. Throws ConfigError for configuration it cannot use.
 */
export async function createServer(options: CreateServerOptions = {}): Promise<CitadelServer> {
  const notices: string[] = [];
  const { logger, logStream, migrate, database: databaseOptions, ...citadelOptions } = options;
  const plugins = resolvePlugins(citadelOptions);
  const config = loadConfig(citadelOptions, notices, knownActions(plugins, citadelOptions));
  const clock = options.clock ?? systemClock;

  const app = Fastify({
    logger: logger ?? {
      level: config.logLevel,
      ...(logStream ? { stream: logStream } : {}),
      serializers: { req: redactedRequestSerializer },
      redact: {
        paths: ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]'],
        remove: true,
      },
    },
    trustProxy: config.trustProxy,
    bodyLimit: 2 * 1024 * 1024,
    // Query strings like `sort=a,b` stay strings; arrays come only from repeated keys.
    routerOptions: { ignoreTrailingSlash: true },
  });

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
  const { services: core, redis } = createCoreServices(config, {
    db: database.db,
    dialect: database.dialect,
    clock,
    logger: app.log,
  });
  for (const [name, service] of Object.entries(core)) app.decorate(name, service);

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

  await app.register(helmet, {
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        // Over plain http (development, tests) upgrading would break every form post.
        upgradeInsecureRequests: config.secureCookies ? [] : null,
      },
    },
    crossOriginEmbedderPolicy: false,
    // Same-origin Referers let a form post that needs sudo come back to its page afterwards;
    // other origins still get none.
    referrerPolicy: { policy: 'same-origin' },
  });
  await app.register(cookie);
  await app.register(formbody);
  await app.register(multipart, { attachFieldsToBody: 'keyValues', limits: { fileSize: 0, files: 0 } });
  await app.register(sessionPlugin);
  app.addHook('preHandler', verifyCsrf);
  app.setErrorHandler(authErrorHandler);
  app.setNotFoundHandler((request, reply) => {
    void authErrorHandler(Object.assign(new Error('Not found.'), { statusCode: 404 }), request, reply);
  });

  await app.register(authCore, { plugins });
  if (config.seedDemo && config.seed) await config.seed(app);

  if (config.api) {
    const { resourceApi } = await import('./api/plugin.ts');
    await app.register(resourceApi, { api: config.api });
    await app.register((await import('./api/docs/plugin.ts')).apiDocs, { api: config.api });
  }

  for (const notice of notices) app.log.warn(notice);

  let closed = false;
  return {
    app,
    services: app,
    redis,
    config,
    notices,
    async close() {
      if (closed) return;
      closed = true;
      await app.close();
      core.mailer.close();
      redis?.disconnect();
      await database.close();
    },
  };
}
