import type { CitadelOptions } from '../config/types.ts';
import type { KnownAction } from '../config/load.ts';
import type { CitadelMigration } from '../db/migrations/types.ts';
import { coreMigrations } from '../db/migrations/index.ts';
import type { CitadelPlugin } from '../auth/core/plugin.ts';
import { defaultPlugins } from '../auth/index.ts';
import { ConfigError } from '../core/errors.ts';
import { securityEventTypes } from '../auth/core/security-events.ts';

/**
 * The plugins of a server: `plugins` from the options is the full list (the built-ins when it is
 * absent), each id once, each table claimed by one plugin, each plugin's `dependencies` present
 * (one line names every one missing).
 */
export function resolvePlugins(options: CitadelOptions): CitadelPlugin[] {
  const plugins: CitadelPlugin[] = [...(options.plugins ?? defaultPlugins())];
  const ids = new Set<string>();
  const tables = new Map<string, string>();
  for (const plugin of plugins) refuseRemovedSlots(plugin);
  for (const { id, tables: own = [] } of plugins) {
    if (ids.has(id)) throw new ConfigError(`two plugins have the id "${id}"`);
    ids.add(id);
    for (const table of own) {
      const owner = tables.get(table);
      if (owner !== undefined)
        throw new ConfigError(`plugins "${owner}" and "${id}" both create the table "${table}"`);
      tables.set(table, id);
    }
  }
  const missing = plugins.flatMap((plugin) =>
    (plugin.dependencies ?? [])
      .filter((dependency) => !ids.has(dependency))
      .map((dependency) => `"${plugin.id}" needs "${dependency}"`),
  );
  if (missing.length > 0)
    throw new ConfigError(`plugins are missing what others depend on: ${missing.join(', ')}`);
  // Each security event type declared once (by the core or one plugin).
  securityEventTypes(plugins);
  return plugins;
}

/**
 * Slots a plugin written for an earlier release may still carry, and what replaces each: refused
 * at start-up, so that a JavaScript plugin does not lose them silently.
 */
const REMOVED_SLOTS: Readonly<Record<string, string>> = {
  routes:
    'plugins do not receive the Fastify instance: declare each route in `endpoints` (defineEndpoint, pageEndpoint) and call other routes in-process with `services.fetch(request)`',
  securityEvents: 'the security event types a plugin records are its `events`: [{ type, label }]',
  pageHeader: 'a part of every page header is a hook: `hooks: { pageHeader }`',
  extendMe:
    "fields added to GET /me are an after hook: `hooks: { after: [{ match: { action: 'me' }, schema: { fields }, handler }] }`",
  meSchema: "the schemas of GET /me's added fields are the after hook's `schema: { fields }`",
  signInFacts: 'the yes/no facts a sign-in reads are a hook: `hooks: { signInFacts }`',
  bearer: 'a verifier of its own bearer credentials is a hook: `hooks: { bearer }`',
};

function refuseRemovedSlots(plugin: CitadelPlugin): void {
  // `events` was an object of listeners (signedIn, request, …); they are hooks now.
  const { events } = plugin as { events?: unknown };
  if (events !== undefined && !Array.isArray(events))
    throw new ConfigError(
      `plugin "${plugin.id}" has an \`events\` object: its listeners (${Object.keys(events as object).join(', ')}) belong in \`hooks\`, and \`events\` lists the security event types it records`,
    );
  for (const [slot, instead] of Object.entries(REMOVED_SLOTS))
    if (slot in plugin)
      throw new ConfigError(
        `plugin "${plugin.id}" has a \`${slot}\` slot, which Citadel no longer reads: ${instead}`,
      );
}

/** Citadel's own migrations: the core's and every plugin's (they run in name order). */
export function citadelMigrations(plugins: readonly CitadelPlugin[]): CitadelMigration[] {
  return [...coreMigrations, ...plugins.flatMap((plugin) => plugin.migrations ?? [])];
}

/** The action ids the configuration may list: the plugins' and the application's own. */
export function knownActions(plugins: readonly CitadelPlugin[], options: CitadelOptions): KnownAction[] {
  return [...plugins.flatMap((plugin) => plugin.actions ?? []), ...(options.actions ?? [])];
}
