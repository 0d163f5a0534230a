import type { CitadelOptions } from './types.ts';

/** Identity helper that types a `citadel.config.ts`. */
export function defineConfig(options: CitadelOptions): CitadelOptions {
  return options;
}
