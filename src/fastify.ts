import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';
import type { CitadelOptions } from './config/types.ts';
import type { OpenDatabaseOptions } from './db/open.ts';
import { loadConfig } from './config/load.ts';
import { systemClock } from './core/clock.ts';
import { knownActions, resolvePlugins } from './app/assembly.ts';
import { mountCitadel } from './app/mount.ts';
import { CallerResolver, kCallerResolver, registerInstance, type CallerResolving } from './embed/caller.ts';
import { appUrlNotice, visibleLogger } from './embed/start-up.ts';

/** What `app.register(citadel, options)` takes: `createServer()`'s options and Fastify's `prefix`. */
export interface CitadelFastifyOptions extends CitadelOptions {
  /** Where the auth routes, pages and resource API live in the host application (`/auth`). */
  prefix?: string;
  /** Apply migrations at registration (default true). */
  migrate?: boolean;
  database?: OpenDatabaseOptions;
}

/** Marks Citadel's own (encapsulated) context: its routes resolve their caller themselves. */
const kInsideCitadel = Symbol.for('citadel.inside');

interface ResolverHolder {
  resolver?: CallerResolving;
}

/** Citadel itself, encapsulated under the prefix. */
function inner(holder: ResolverHolder): FastifyPluginAsync<CitadelFastifyOptions> {
  return async (app: FastifyInstance, options) => {
    const { prefix: _prefix, migrate, database, ...citadelOptions } = options;
    const notices: string[] = [];
    const plugins = resolvePlugins(citadelOptions);
    const config = loadConfig(
      { basePath: app.prefix, ...citadelOptions },
      notices,
      knownActions(plugins, citadelOptions),
    );
    app.decorate(kInsideCitadel, true);
    // A host logger that hides info lines (a plain `Fastify()`) would swallow development mail.
    const logger = visibleLogger(app.log, config);
    const appUrl = appUrlNotice(citadelOptions, config);
    if (appUrl) notices.push(appUrl);
    const mounted = await mountCitadel(app, {
      config,
      plugins,
      clock: citadelOptions.clock ?? systemClock,
      migrate,
      database,
      logger,
    });
    const resolver = new CallerResolver(app);
    holder.resolver = resolver;
    const unregister = registerInstance(resolver);
    app.addHook('onClose', async () => {
      unregister();
      await mounted.release();
    });
    for (const notice of notices) logger.warn(notice);
  };
}

/**
 * Citadel as a Fastify plugin for an existing application:
 * `await app.register(citadel, { prefix: '/auth', databaseUrl, sessionSecret, appUrl })`.
 * Everything stays inside the plugin's encapsulated context under `prefix` (links and redirects
 * included); the host's logger, trust-proxy and body-limit settings apply. The database, mail
 * transport and Redis connection close with the host (`app.close()`).
 *
 * The host's own routes see who is calling too: `request.caller` (the same `Caller` as on
 * Citadel's routes, null for anonymous requests, unless the host declared its own `caller`
 * request decorator), `getCaller(request)`, and the `requireCaller` / `requireSudo` preHandlers.
 */
const citadel: FastifyPluginAsync<CitadelFastifyOptions> = fp(
  async (host: FastifyInstance, options: CitadelFastifyOptions) => {
    const holder: ResolverHolder = {};
    if (!host.hasDecorator(kCallerResolver)) host.decorate(kCallerResolver, holder);
    const ownCaller = host.hasRequestDecorator('caller');
    if (!ownCaller) {
      host.decorateRequest('caller', null);
      host.addHook('onRequest', async (request) => {
        // Citadel's routes resolve (and may restore) the caller in their own hook.
        if ((request.server as unknown as Record<symbol, unknown>)[kInsideCitadel]) return;
        const resolved = await (holder.resolver as CallerResolver | undefined)?.resolve(request);
        request.caller = resolved?.caller ?? null;
      });
    }
    await host.register(inner(holder), { ...options, prefix: options.prefix });
  },
  { fastify: '5.x' },
);

export default citadel;
