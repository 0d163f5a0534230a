import { SESSION_COOKIE } from '../../http/sessions/plugin.ts';
import type { Dialect } from '../../db/url.ts';
import { compileApi, publishedIn, type CompiledResource } from '../resource/compile.ts';
import type { ApiConfig } from '../resource/types.ts';
import { sqidSchema, type IdSettings } from './column-schema.ts';
import { DEFAULT_OPENAPI_VERSION, finishOpenApiDocument, type OpenApiVersion } from '../../core/openapi.ts';
import type { OpenApiSchema } from './json-schema.ts';
import { filterComponent, filterTreeSchema } from './parameters.ts';
import { componentName, type DocContext } from './names.ts';
import { recordSchema } from './record-schema.ts';
import { inputSchema, VERB_TITLE } from './input-schema.ts';
import { errorResponseComponents, PAGINATION_SCHEMA, PROBLEM_SCHEMA } from './responses.ts';
import { pathsOf } from './operations.ts';
import { deepFreeze } from '../../core/deep-freeze.ts';

export { NO_NUL } from './input-schema.ts';

/*
 * The resource API's OpenAPI document: per published version, the record, filter and input schemas
 * of its resources (record-schema.ts, parameters.ts, input-schema.ts), their paths and operations
 * (operations.ts) and the shared problem responses (responses.ts).
 */

/** Thrown for a version the API does not publish (the CLI prints its message as one line). */
export class UnknownApiVersionError extends Error {
  constructor(version: string, known: string[]) {
    super(`unknown API version "${version}" (published: ${known.join(', ') || 'none'})`);
    this.name = 'UnknownApiVersionError';
  }
}

function build(
  compiled: ReadonlyMap<string, CompiledResource>,
  api: ApiConfig,
  version: string,
  ctx: DocContext,
) {
  const resources = [...compiled.values()].filter((resource) => publishedIn(resource.config, version));
  const published = new Set(resources.map((resource) => resource.name));
  const schemas: Record<string, OpenApiSchema> = {};
  const paths: Record<string, unknown> = {};
  for (const resource of resources) {
    const component = componentName(resource.name);
    schemas[component] = recordSchema(ctx, resource, published, true);
    if (resource.filterable.size > 0) {
      const name = filterComponent(component);
      schemas[name] = filterTreeSchema(resource, `#/components/schemas/${name}`);
    }
    for (const verb of ['post', 'put', 'patch'] as const) {
      if (!resource.served.has(verb)) continue;
      schemas[`${component}${VERB_TITLE[verb]}`] = inputSchema(
        ctx,
        resource,
        resource.validators[verb]!,
        verb,
        0,
        null,
      );
    }
    Object.assign(paths, pathsOf(ctx, resource));
  }
  schemas.Pagination = PAGINATION_SCHEMA;
  schemas.Problem = PROBLEM_SCHEMA;
  return {
    openapi: '3.1.0',
    info: {
      title: api.apiName,
      version,
      description: `The ${api.apiName} resource API, version ${version}. Errors are RFC 9457 problem details.`,
    },
    servers: [{ url: `${api.apiBaseUrl}/${version}` }],
    tags: resources.map((resource) => ({
      name: resource.name,
      ...(resource.config.description ? { description: resource.config.description } : {}),
    })),
    paths,
    components: {
      schemas,
      responses: errorResponseComponents(),
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description: 'A personal access token: `Authorization: Bearer <token>`.',
        },
        cookieAuth: {
          type: 'apiKey',
          in: 'cookie',
          name: SESSION_COOKIE,
          description: 'The session cookie of a signed-in browser.',
        },
      },
    },
  };
}

const cache = new WeakMap<
  ReadonlyMap<string, CompiledResource>,
  Map<string, Readonly<Record<string, unknown>>>
>();

/** How a document is built besides the API: its OpenAPI version and the deployment's id settings. */
export interface DocumentOptions {
  /** Picks the compiled instance to share; the document is the same for every dialect. */
  dialect?: Dialect;
  /** `3.0` (3.0.3) or `3.1` (3.1.0); default: the API's `openapi`, else 3.0. */
  openapi?: OpenApiVersion;
  /** SQIDS_ALPHABET and SQIDS_MIN_LENGTH: the pattern of obfuscated ids (default: Sqids' alphabet, 8). */
  ids?: IdSettings;
}

/**
 * The OpenAPI document of one published version (3.0.3 unless 3.1 is asked for), built from the
 * same compiled resources the engine serves, once per configuration, version and options; frozen:
 * callers copy before changing it.
 */
export function buildOpenApiDocument(
  api: ApiConfig,
  version: string,
  options: DocumentOptions = {},
): Readonly<Record<string, unknown>> {
  const known = api.publications.map((publication) => publication.version);
  if (!known.includes(version)) throw new UnknownApiVersionError(version, known);
  const openapi = options.openapi ?? api.openapi ?? DEFAULT_OPENAPI_VERSION;
  const compiled = compileApi(api, options.dialect ?? 'sqlite');
  const sqid = sqidSchema(options.ids);
  const key = `${version}\u0000${openapi}\u0000${String(sqid.pattern)}`;
  let perVersion = cache.get(compiled);
  if (!perVersion) cache.set(compiled, (perVersion = new Map()));
  let document = perVersion.get(key);
  if (!document) {
    document = deepFreeze(finishOpenApiDocument(build(compiled, api, version, { sqid }), openapi));
    perVersion.set(key, document);
  }
  return document;
}
