import type { CitadelOptions } from './config/types.ts';
import type { KnownAction } from './config/load.ts';
import type { CitadelMigration } from './db/migrations/types.ts';
import { coreMigrations } from './db/migrations/index.ts';
import type { CitadelPlugin } from './plugin.ts';
import { defaultPlugins } from './auth/index.ts';

/** The built-in plugins, then the application's, each name once. */
export function resolvePlugins(options: CitadelOptions): CitadelPlugin[] {
  const plugins = [...defaultPlugins, ...(options.plugins ?? [])];
  const names = new Set<string>();
  for (const { name } of plugins) {
    if (names.has(name)) throw new Error(`two plugins are named "${name}"`);
    names.add(name);
  }
  return plugins;
}

/** Citadel's own migrations: the core's and every plugin's (they run in name order). */
export function citadelMigrations(plugins: readonly CitadelPlugin[]): CitadelMigration[] {
  return [...coreMigrations, ...plugins.flatMap((plugin) => plugin.migrations ?? [])];
}

/** The action ids the configuration may list: the plugins' and the application's own. */
export function knownActions(plugins: readonly CitadelPlugin[], options: CitadelOptions): KnownAction[] {
  return [...plugins.flatMap((plugin) => plugin.actions ?? []), ...(options.actions ?? [])];
}
