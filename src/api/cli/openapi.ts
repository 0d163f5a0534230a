import type { CitadelOptions } from '../../config/types.ts';
import { ConfigError } from '../../config/errors.ts';
import { buildOpenApiDocument } from '../openapi/document.ts';

/**
 * `citadel openapi --api-version v1`: the OpenAPI document of one published version of the
 * configured API, as JSON on stdout. An unknown version throws (the CLI prints one line, exit 1).
 */
export async function printOpenApi(
  options: CitadelOptions,
  version: string,
  write: (text: string) => void = (text) => process.stdout.write(text),
): Promise<void> {
  if (!options.api) throw new ConfigError('no resource API is configured (the config has no `api`)');
  write(`${JSON.stringify(buildOpenApiDocument(options.api, version), null, 2)}\n`);
}
