import type { CitadelConfig } from '../../config/types.ts';
import type { CitadelServices } from './services.ts';
import { ConfigError } from '../../core/errors.ts';

/** Plugin id to the options it runs with, resolved once at start-up (`resolvePluginOptions`). */
export type PluginOptionsMap = ReadonlyMap<string, unknown>;

declare module './services.ts' {
  interface CitadelServices {
    /** Each plugin's options as resolved at start-up, by plugin id (read with `pluginOptions`). */
    pluginOptions: PluginOptionsMap;
  }
}

/**
 * Every plugin's options for this configuration: `resolveOptions(config)` where the plugin has
 * one (given options over the environment over defaults), else its `options`. Called at start-up,
 * so a value the plugins cannot use stops it with one line.
 */
export function resolvePluginOptions(
  plugins: readonly { id: string; options?: unknown; resolveOptions?: (config: CitadelConfig) => unknown }[],
  config: CitadelConfig,
): PluginOptionsMap {
  return new Map(
    plugins.map((plugin) => [
      plugin.id,
      plugin.resolveOptions ? plugin.resolveOptions(config) : plugin.options,
    ]),
  );
}

/**
 * The options plugin `id` runs with. A capability reads its own through a typed accessor beside
 * its factory (`magicLinkOptions(services)`); `undefined` when no such plugin is registered.
 */
export function pluginOptions<T>(
  services: Pick<CitadelServices, 'pluginOptions'>,
  id: string,
): T | undefined {
  return services.pluginOptions.get(id) as T | undefined;
}

/** Option readers for the built-ins: environment values as whole numbers, one-line errors. */
export function envInteger(
  env: Record<string, string | undefined>,
  name: string,
  min: number,
): number | undefined {
  const value = env[name];
  if (value === undefined || value === '') return undefined;
  if (!/^\d+$/.test(value) || Number(value) < min)
    throw new ConfigError(`${name} must be a whole number of at least ${min}, got "${value}"`);
  return Number(value);
}

/** A number option given in code: a whole number of at least `min`, or a one-line error. */
export function checkInteger(plugin: string, name: string, value: number, min: number): number {
  if (!Number.isInteger(value) || value < min)
    throw new ConfigError(
      `${plugin}: ${name} must be a whole number of at least ${min}, got ${String(value)}`,
    );
  return value;
}

/**
 * A factory's options without the keys given as `undefined`, so that spreading them over the
 * defaults keeps the defaults (`{ ...defaults, ...givenOptions(options) }`).
 */
export function givenOptions<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as Partial<T>;
}
