import * as BUILT_INS from './built-ins.ts';

export * from './built-ins.ts';

/** The built-in plugins' factories by the key `defaultPlugins()` takes (`BUILT_INS.magicLink`). */
type BuiltIns = typeof BUILT_INS;

/** The key of a built-in plugin in `defaultPlugins()`'s overrides (`magicLink`, `accountCenter`, …). */
export type BuiltInPluginKey = keyof BuiltIns;

/** Every built-in key in registration order, for tests and tools that go through them all. */
export const BUILT_IN_PLUGIN_KEYS = [
  'accounts',
  'tokens',
  'social',
  'password',
  'pipeline',
  'magicLink',
  'factors',
  'sudo',
  'accountCenter',
  'serviceTokens',
  'admin',
] as const satisfies readonly BuiltInPluginKey[];

/** The built-ins in the order they register. */
type BuiltInOrder = typeof BUILT_IN_PLUGIN_KEYS;

/** Fails to compile when a built-in of `BUILT_INS` is missing from the registration order. */
const everyBuiltInOrdered: Exclude<BuiltInPluginKey, BuiltInOrder[number]> extends never ? true : never =
  true;
void everyBuiltInOrdered;

/** The plugin a built-in's factory returns (`BuiltInPlugin<'magicLink'>`). */
export type BuiltInPlugin<K extends BuiltInPluginKey> = ReturnType<BuiltIns[K]>;

/**
 * Per built-in: `false` leaves it out, an object gives its factory's options
 * (`defaultPlugins({ magicLink: { ttlSeconds: 600 }, social: false })`).
 */
export type DefaultPluginOverrides = {
  [K in BuiltInPluginKey]?: false | NonNullable<Parameters<BuiltIns[K]>[0]>;
};

/** The tuple `defaultPlugins(overrides)` returns: each built-in's plugin type, those left out gone. */
export type DefaultPlugins<
  O extends DefaultPluginOverrides,
  Keys extends readonly BuiltInPluginKey[] = BuiltInOrder,
> = Keys extends readonly [
  infer K extends BuiltInPluginKey,
  ...infer Rest extends readonly BuiltInPluginKey[],
]
  ? O[K] extends false
    ? DefaultPlugins<O, Rest>
    : [BuiltInPlugin<K>, ...DefaultPlugins<O, Rest>]
  : [];

/**
 * The built-in capabilities, each made by its factory: `plugins` in the
 * config is the full list, so an application adds its own after them:
 * `plugins: [...defaultPlugins(), myPlugin]`. Each key of `overrides` is `false` (leave that
 * built-in out, with its routes, its pages, the links other pages show to them and its OpenAPI
 * entries) or options for its factory: `defaultPlugins({ magicLink: { ttlSeconds: 600 }, social:
 * false })`. A built-in that others depend on cannot be left out alone: start-up names them.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- no overrides: every built-in with its defaults
export function defaultPlugins<const O extends DefaultPluginOverrides = {}>(
  overrides?: O & Record<Exclude<keyof O, BuiltInPluginKey>, never>,
): DefaultPlugins<O> {
  for (const key of Object.keys(overrides ?? {})) {
    if (!Object.hasOwn(BUILT_INS, key))
      throw new TypeError(
        `defaultPlugins: no built-in plugin "${key}" (known: ${BUILT_IN_PLUGIN_KEYS.join(', ')})`,
      );
  }
  const given: DefaultPluginOverrides = overrides ?? {};
  const plugins = BUILT_IN_PLUGIN_KEYS.flatMap((key) => {
    const options = given[key];
    if (options === false) return [];
    const factory = BUILT_INS[key] as (options?: object) => BuiltInPlugin<BuiltInPluginKey>;
    return [factory(options ?? {})];
  });
  return plugins as DefaultPlugins<O>;
}

/** A built-in plugin with its default options (its `id` is what `dependencies` and errors use). */
export function builtInPlugin<K extends BuiltInPluginKey>(key: K): BuiltInPlugin<K> {
  return (BUILT_INS[key] as () => BuiltInPlugin<K>)();
}
