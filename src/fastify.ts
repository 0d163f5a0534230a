import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { CitadelOptions } from './config/types.ts';
import type { OpenDatabaseOptions } from './db/open.ts';
import { loadConfig } from './config/load.ts';
import { systemClock } from './core/clock.ts';
import { knownActions, resolvePlugins } from './assembly.ts';
import { mountCitadel } from './mount.ts';

/** What `app.register(citadel, options)` takes: `createServer()`'s options and Fastify's `prefix`. */
export interface CitadelFastifyOptions extends CitadelOptions {
  /** Where the auth routes, pages and resource API live in the host application (`/auth`). */
  prefix?: string;
  /** Apply migrations at registration (default true). */
  migrate?: boolean;
  database?: OpenDatabaseOptions;
}

/**
 * Citadel as a Fastify plugin for an existing application:
 * `await app.register(citadel, { prefix: '/auth', databaseUrl, sessionSecret, appUrl })`.
 * Everything stays inside the plugin's encapsulated context under `prefix` (links and redirects
 * included); the host's logger, trust-proxy and body-limit settings apply. The database, mail
 * transport and Redis connection close with the host (`app.close()`).
 */
const citadel: FastifyPluginAsync<CitadelFastifyOptions> = async (app: FastifyInstance, options) => {
  const { prefix: _prefix, migrate, database, ...citadelOptions } = options;
  const notices: string[] = [];
  const plugins = resolvePlugins(citadelOptions);
  const config = loadConfig(
    { basePath: app.prefix, ...citadelOptions },
    notices,
    knownActions(plugins, citadelOptions),
  );
  const mounted = await mountCitadel(app, {
    config,
    plugins,
    clock: citadelOptions.clock ?? systemClock,
    migrate,
    database,
  });
  app.addHook('onClose', async () => mounted.release());
  for (const notice of notices) app.log.warn(notice);
};

export default citadel;
