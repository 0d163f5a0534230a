import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import multipart from '@fastify/multipart';
import helmet from '@fastify/helmet';
import { loadConfig } from './config/load.ts';
import type { CitadelConfig, CitadelOptions } from './config/types.ts';
import { openDatabase, type OpenDatabaseOptions } from './db/open.ts';
import { migrateToLatest } from './db/migrate.ts';
import { allMigrations } from './db/migrations/index.ts';
import { createServices, type CitadelServices } from './services.ts';
import { systemClock } from './clock.ts';
import { sessionPlugin } from './http/sessions/plugin.ts';
import { verifyCsrf } from './http/csrf.ts';
import { authErrorHandler } from './http/error-handler.ts';
import { redactedRequestSerializer } from './http/logging.ts';
import { authModules } from './auth/modules.ts';
import './http/fastify-types.ts';
import { fastifyTrustProxy } from './config/trust-proxy.ts';

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
  services: CitadelServices;
  config: CitadelConfig;
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
  const config = loadConfig(options, notices);
  const clock = options.clock ?? systemClock;

  const app = Fastify({
    logger: options.logger ?? {
      level: config.logLevel,
      ...(options.logStream ? { stream: options.logStream } : {}),
      serializers: { req: redactedRequestSerializer },
      redact: {
        paths: ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]'],
        remove: true,
      },
    },
    trustProxy: fastifyTrustProxy(config.trustProxy),
    bodyLimit: 2 * 1024 * 1024,
    // Query strings like `sort=a,b` stay strings; arrays come only from repeated keys.
    routerOptions: { ignoreTrailingSlash: true },
  });

  const database = await openDatabase(config.databaseUrl, {
    onConnectionError: (error) =>
      app.log.warn({ err: { message: error.message } }, 'database connection lost'),
    ...options.database,
  });
  if (options.migrate !== false) {
    await migrateToLatest(database.db, database.dialect, [...allMigrations, ...config.migrations]);
  }
  const services = createServices(config, {
    db: database.db,
    dialect: database.dialect,
    clock,
    logger: app.log,
  });
  app.decorate('citadel', services);
  if (config.seedDemo && config.seed) await config.seed(services);

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

  for (const module of authModules) await app.register(module);

  if (config.api) {
    const { resourceApi } = await import('./api/plugin.ts');
    await app.register(resourceApi, { api: config.api });
    await app.register((await import('./api/docs/plugin.ts')).apiDocs, { api: config.api });
  }

  for (const notice of notices) app.log.warn(notice);

  let closed = false;
  return {
    app,
    services,
    config,
    notices,
    async close() {
      if (closed) return;
      closed = true;
      await app.close();
      services.mailer.close();
      services.redis?.disconnect();
      await database.close();
    },
  };
}
