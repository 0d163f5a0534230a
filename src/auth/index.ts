import type { CitadelPlugin } from '../plugin.ts';
import { accountsPlugin } from './accounts/plugin.ts';
import { tokensPlugin } from './tokens/plugin.ts';
import { socialPlugin } from './social/plugin.ts';
import { passwordPlugin } from './password/plugin.ts';
import { pipelinePlugin } from './pipeline/plugin.ts';
import { magicLinkPlugin } from './magic-link/plugin.ts';
import { factorsPlugin } from './factors/plugin.ts';
import { sudoPlugin } from './sudo/plugin.ts';
import { accountCenterPlugin } from './account-center/plugin.ts';

/** The built-in capabilities by the key `defaultPlugins()` takes, in the order they register. */
const BUILT_INS = {
  accounts: accountsPlugin,
  tokens: tokensPlugin,
  social: socialPlugin,
  password: passwordPlugin,
  pipeline: pipelinePlugin,
  magicLink: magicLinkPlugin,
  factors: factorsPlugin,
  sudo: sudoPlugin,
  accountCenter: accountCenterPlugin,
} as const satisfies Record<string, CitadelPlugin>;

/** The key of a built-in plugin in `defaultPlugins()`'s overrides (`magicLink`, `accountCenter`, …). */
export type BuiltInPluginKey = keyof typeof BUILT_INS;

/** `false` leaves a built-in out: `defaultPlugins({ magicLink: false })`. */
export type DefaultPluginOverrides = Partial<Record<BuiltInPluginKey, false>>;

/** Every built-in key, for tests and tools that go through them all. */
export const BUILT_IN_PLUGIN_KEYS = Object.keys(BUILT_INS) as BuiltInPluginKey[];

/**
 * The built-in capabilities (contract section 15), each a plugin with its endpoints, pages, tables
 * and actions. `plugins` in the config is the full list, so an application adds its own after
 * them: `plugins: [...defaultPlugins(), myPlugin]`; `defaultPlugins({ magicLink: false })` leaves
 * one out (with it its routes, its pages, the links other pages show to them and its OpenAPI
 * entries). A built-in that others depend on cannot be left out alone: start-up names them.
 */
export function defaultPlugins<const O extends DefaultPluginOverrides = Record<never, never>>(
  overrides: O = {} as O,
): (CitadelPlugin &
  BuiltInPlugin<Exclude<BuiltInPluginKey, { [K in keyof O]: O[K] extends false ? K : never }[keyof O]>>)[] {
  for (const key of Object.keys(overrides)) {
    if (!Object.hasOwn(BUILT_INS, key))
      throw new TypeError(
        `defaultPlugins: no built-in plugin "${key}" (known: ${BUILT_IN_PLUGIN_KEYS.join(', ')})`,
      );
  }
  return BUILT_IN_PLUGIN_KEYS.filter((key) => overrides[key] !== false).map((key) => BUILT_INS[key]) as never;
}

/**
 * The type of the built-in plugins of these keys, each with its endpoints' literal types (what
 * `createClient<typeof config>()` reads).
 */
export type BuiltInPlugin<K extends BuiltInPluginKey = BuiltInPluginKey> = (typeof BUILT_INS)[K];

/** The built-in plugin a key stands for (its `name` is what `dependencies` and errors use). */
export function builtInPlugin(key: BuiltInPluginKey): CitadelPlugin {
  return BUILT_INS[key];
}
