import type { CitadelOptions } from '../../config/types.ts';

/** `citadel openapi --api-version v1`: built in the resource API issue. */
export async function printOpenApi(_options: CitadelOptions, _version: string): Promise<void> {
  throw new Error('openapi is not available yet');
}
