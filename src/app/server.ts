import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RedisClient } from '../core/redis-client.ts';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { loadConfig } from '../config/load.ts';
import type { CitadelConfig, CitadelOptions } from '../config/types.ts';
import type { CitadelServices } from '../auth/core/services.ts';
import { systemClock } from '../core/clock.ts';
import { redactedRequestSerializer } from '../http/security/logging.ts';
import {
  citadelClientErrorHandler,
  citadelFrameworkErrors,
  MAX_REQUEST_HEAD_BYTES,
  MAX_URL_LENGTH,
} from '../http/request/request-head.ts';
import {
  citadelHelmetOptions,
  computeSecurityHeaders,
  jsonSecurityHeaders,
} from '../http/security/security-headers.ts';
import { developmentLogTransport } from '../ops/logging.ts';
import { knownActions, resolvePlugins } from './assembly.ts';
import { mountCitadel } from './mount.ts';
import type { OpenDatabaseOptions } from '../db/open.ts';
import { fastifyTrustProxy } from '../config/trust-proxy.ts';
import {
  CallerResolver,
  kCallerResolver,
  registerInstance,
  type CallerSource,
  type ResolvedCaller,
} from '../embed/caller.ts';
import { clientAddressOf, injectFetch, UNKNOWN_CLIENT_ADDRESS } from '../embed/fetch.ts';
import { appUrlNotice, visibleLogger } from '../embed/start-up.ts';

/** What `createServer()` takes: the configuration, plus how to log, migrate and open the database. */
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

/** A running-ready Citadel: the Fastify instance, its configuration, a Node handler and `close()`. */
export interface CitadelServer {
  app: FastifyInstance;
  /** Every service (`db`, `users`, `mailer`, ...) as one plain object. */
  services: CitadelServices;
  config: CitadelConfig;
  /** The Redis connection when `redisUrl` is set (sessions and rate-limit counters live there). */
  redis?: RedisClient;
  /** Notices from start-up (for example a generated session secret). */
  notices: string[];
  /**
   * A Node `(req, res)` listener serving everything Citadel serves, for `node:http`, Express or
   * Koa (mounted under a path: set `basePath` to that path so links and redirects include it).
   */
  handler: (req: IncomingMessage, res: ServerResponse) => void;
  /**
   * The same, for the Fetch API: a Request in, a Response out (see `createFetchHandler()`). The
   * second argument gives the client's address (`{ clientAddress }`, or Bun's server, or Deno's
   * connection info).
   */
  fetch(request: Request, context?: unknown): Promise<Response>;
  /** Who is calling (session cookie or bearer token) on any request: see `getCaller()`. */
  getCaller(request: CallerSource): Promise<ResolvedCaller | null>;
  /** Closes the Fastify instance, the database, the mail transport and Redis. */
  close(): Promise<void>;
}

/** Hand a Node request to Fastify's router once the instance is ready (asked at the first request). */
function nodeHandler(app: FastifyInstance): CitadelServer['handler'] {
  let ready: Promise<unknown> | undefined;
  return (req, res) => {
    ready ??= Promise.resolve(app.ready());
    ready.then(
      () => app.routing(req, res),
      (error: unknown) => {
        app.log.error({ err: { message: (error as Error).message } }, 'Citadel failed to start');
        res.statusCode = 500;
        res.end();
      },
    );
  };
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

  // Answers written before any route runs (Node's parser or the router refused the request).
  const earlySecurityHeaders = jsonSecurityHeaders(computeSecurityHeaders(citadelHelmetOptions(config)));
  const app = Fastify({
    logger: logger ?? {
      level: config.logLevel,
      ...(logStream ? { stream: logStream } : {}),
      ...developmentLogTransport({
        production: config.production,
        ownStream: Boolean(logStream),
        isTty: Boolean(process.stdout.isTTY),
      }),
      serializers: { req: redactedRequestSerializer },
      redact: {
        paths: [
          'req.headers.authorization',
          'req.headers.cookie',
          'res.headers["set-cookie"]',
          // @fastify/multipart's trace line carries the request's headers (cookie, Authorization).
          'busboyOptions.headers',
        ],
        remove: true,
      },
    },
    trustProxy: fastifyTrustProxy(config.trustProxy),
    // Requests Node's parser refuses (a head over the limit, a malformed request line) get the
    // security headers and a problem-details body too; heads up to 64 KiB reach Citadel, which
    // answers a URL over 32 KiB with its own 414 (src/http/request/request-head.ts).
    http: { maxHeaderSize: MAX_REQUEST_HEAD_BYTES },
    clientErrorHandler: citadelClientErrorHandler(earlySecurityHeaders),
    // The router's own refusals (a path that does not decode) get the same kind of answer.
    frameworkErrors: citadelFrameworkErrors(earlySecurityHeaders),
    bodyLimit: 2 * 1024 * 1024,
    // Query strings like `sort=a,b` stay strings; arrays come only from repeated keys. Path
    // parameters are bounded by the URL's limit alone (Fastify's default is 100 characters):
    // a long id reaches its route, which answers it as it answers any unknown id.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_URL_LENGTH },
  });

  const resolver = new CallerResolver(app);
  app.decorate(kCallerResolver, { resolver });
  // Mounted under a path in a host (Express, Hono): the host's address is not Citadel's to know.
  if (config.basePath !== '') {
    const appUrl = appUrlNotice(citadelOptions, config);
    if (appUrl) notices.push(appUrl);
  }
  // With `logger` given, development mail and notices still reach the terminal.
  const visible = logger === undefined ? app.log : visibleLogger(app.log, config);
  const mounted = await mountCitadel(app, {
    config,
    plugins,
    clock,
    migrate,
    database: databaseOptions,
    logger: visible,
  });
  for (const notice of notices) visible.warn(notice);
  // Development only, and only when warnings are shown: the check costs a few catalog queries.
  if (config.api && !config.production && ['trace', 'debug', 'info', 'warn'].includes(app.log.level)) {
    const { warnAboutMissingIndexes } = await import('../api/read/index-check.ts');
    await warnAboutMissingIndexes(config.api, app.db, app.dialect, app.log);
  }

  let closed = false;
  const server: CitadelServer = {
    app,
    services: mounted.services,
    redis: mounted.redis,
    handler: nodeHandler(app),
    fetch: (request, context) =>
      injectFetch(app, request, {
        basePath: config.basePath,
        apiBaseUrl: config.api?.apiBaseUrl,
        remoteAddress: clientAddressOf(request, context) ?? UNKNOWN_CLIENT_ADDRESS,
      }),
    getCaller: (request) => resolver.getCaller(request),
    config,
    notices,
    async close() {
      if (closed) return;
      closed = true;
      unregister();
      await app.close();
      await mounted.release();
    },
  };
  const unregister = registerInstance(server);
  return server;
}
