import type { CitadelOptions } from '../config/types.ts';
import { resolvePlugins } from './assembly.ts';
import { serverLanguages } from './languages.ts';

/**
 * `citadel check`'s language part: for each language besides English, `<lang>: N missing`, then
 * each full key it lacks on its own line (shown in English until translated).
 */
export function languageReport(options: CitadelOptions): string[] {
  const languages = serverLanguages(resolvePlugins(options), options);
  const lines: string[] = [];
  for (const [tag, keys] of languages.missing()) {
    lines.push(`${tag}: ${keys.length} missing`);
    for (const key of keys) lines.push(`  ${key}`);
  }
  return lines;
}
