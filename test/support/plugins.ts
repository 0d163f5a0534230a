import { BUILT_IN_PLUGIN_KEYS, type BuiltInPluginKey, type CitadelPlugin } from '../../src/index.ts';
import { builtInPlugin } from '../../src/auth/index.ts';

/** The built-ins that must go with `key` (those that depend on it, directly or not). */
export function withDependents(key: BuiltInPluginKey): BuiltInPluginKey[] {
  const out = new Set<BuiltInPluginKey>([key]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const other of BUILT_IN_PLUGIN_KEYS) {
      if (out.has(other)) continue;
      const needs = (builtInPlugin(other) as CitadelPlugin).dependencies ?? [];
      if ([...out].some((gone) => needs.includes(builtInPlugin(gone).id))) {
        out.add(other);
        grew = true;
      }
    }
  }
  return [...out];
}
