import type { CitadelOptions } from './types.ts';

/**
 * Identity helper that types a `citadel.config.ts`. The `plugins` and `api` given keep their exact
 * types, so that `createClient<typeof config>()` (`citadel/client`) is typed from them.
 */
export function defineConfig<
  P extends NonNullable<CitadelOptions['plugins']> | undefined = undefined,
  A extends CitadelOptions['api'] = undefined,
>(
  options: CitadelOptions & { plugins?: P; api?: A },
): Omit<CitadelOptions, 'plugins' | 'api'> & { plugins?: P; api?: A } {
  return options;
}
