import type { CitadelOptions } from '../../config/types.ts';
import { ConfigError } from '../../core/errors.ts';
import { parseOpenApiVersion } from '../../core/openapi.ts';
import { buildOpenApiDocument } from '../openapi/document.ts';

/**
 * `citadel openapi --api-version v1 [--openapi 3.1]`: the OpenAPI document of one published version
 * of the configured API, as JSON on stdout: the version `--openapi` asks for, else the API's
 * `openapi`, else the configuration's, else 3.0.3. The id pattern follows SQIDS_ALPHABET and
 * SQIDS_MIN_LENGTH as the server reads them. An unknown version throws (one line, exit 1).
 */
export async function printOpenApi(
  options: CitadelOptions,
  version: string,
  write: (text: string) => void = (text) => process.stdout.write(text),
  openapi?: string,
): Promise<void> {
  if (!options.api) throw new ConfigError('no resource API is configured (the config has no `api`)');
  const env = options.env ?? process.env;
  const minLength =
    options.sqidsMinLength ?? (env.SQIDS_MIN_LENGTH ? Number(env.SQIDS_MIN_LENGTH) : undefined);
  const document = buildOpenApiDocument(options.api, version, {
    openapi:
      openapi === undefined
        ? (options.api.openapi ?? parseOpenApiVersion(options.openapi, 'openapi'))
        : parseOpenApiVersion(openapi, '--openapi'),
    ids: {
      alphabet: options.sqidsAlphabet ?? (env.SQIDS_ALPHABET || undefined),
      minLength: Number.isInteger(minLength) && minLength! >= 0 ? minLength : undefined,
    },
  });
  write(`${JSON.stringify(document, null, 2)}\n`);
}
