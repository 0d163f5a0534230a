import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import { buildOpenApiDocument, type DocumentOptions } from '../../../src/api/openapi/document.ts';
import type { OpenApiVersion } from '../../../src/core/openapi.ts';
import { jsonSchemaDocument } from '../../support/openapi-json-schema.ts';
import type { ApiConfig } from '../../../src/api/resource/types.ts';

// ajv-formats is CommonJS: its default export arrives under `default` in ESM.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ??
  addFormatsModule) as unknown as (ajv: Ajv2020) => void;

interface Operation {
  responses: Record<string, unknown>;
}
type Document = {
  paths: Record<string, Record<string, unknown>>;
  components: { responses: Record<string, unknown> };
};

/** `~` and `/` escaped for a JSON pointer, then made safe for a URI fragment. */
const pointer = (segment: string) => encodeURIComponent(segment.replace(/~/g, '~0').replace(/\//g, '~1'));

/**
 * Checks real responses of the resource API against the OpenAPI documents of their version, the
 * 3.0.3 one and the 3.1.0 one: the status must be documented for the operation, and the body must
 * match the schema of its content type (problem details included). Paths outside the documented
 * operations are not checked.
 */
export class OpenApiResponseChecker {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
  private readonly documents = new Map<string, Document>();
  private readonly routes: { version: string; method: string; pattern: RegExp; path: string }[] = [];
  private readonly compiled = new Map<string, ValidateFunction>();
  readonly violations: string[] = [];
  checked = 0;

  constructor(
    private readonly api: ApiConfig,
    options: Pick<DocumentOptions, 'ids'> = {},
    private readonly openapiVersions: readonly OpenApiVersion[] = ['3.0', '3.1'],
  ) {
    addFormats(this.ajv);
    for (const { version } of api.publications) {
      for (const openapi of openapiVersions) {
        // A 3.0 document's schemas read as JSON Schema (nullable, boolean exclusive bounds).
        const document = jsonSchemaDocument(
          structuredClone(buildOpenApiDocument(api, version, { ...options, openapi })),
        ) as unknown as Document;
        this.documents.set(`${version}_${openapi}`, document);
        this.ajv.addSchema(document as object, `doc-${version}_${openapi}`);
      }
      const document = this.documents.get(`${version}_${openapiVersions[0]}`)!;
      for (const [path, item] of Object.entries(document.paths)) {
        const pattern = new RegExp(
          `^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`,
        );
        for (const method of Object.keys(item)) {
          if (method !== 'parameters') this.routes.push({ version, method, pattern, path });
        }
      }
    }
  }

  /** Record a violation for this response, if any. */
  check(method: string, url: string, status: number, contentType: string, payload: string): void {
    const prefix = this.api.apiBaseUrl;
    const rest = url.split('?')[0]!.slice(prefix.length);
    const match = /^\/([^/]+)(\/.*)$/.exec(rest);
    if (!url.startsWith(`${prefix}/`) || !match) return;
    const [, version, path] = match as unknown as [string, string, string];
    const route = this.routes.find(
      (r) => r.version === version && r.method === method.toLowerCase() && r.pattern.test(path),
    );
    if (!route) return;
    for (const openapi of this.openapiVersions)
      this.checkIn(`${version}_${openapi}`, route, method, url, status, contentType, payload);
  }

  private checkIn(
    documentKey: string,
    route: { path: string; method: string },
    method: string,
    url: string,
    status: number,
    contentType: string,
    payload: string,
  ): void {
    const where = `${method} ${url} → ${status} (${documentKey})`;
    const document = this.documents.get(documentKey)!;
    const operation = document.paths[route.path]![route.method] as Operation;
    const key = String(status) in operation.responses ? String(status) : 'default';
    let response = operation.responses[key] as Record<string, unknown> | undefined;
    if (!response) {
      this.violations.push(`${where}: status not documented`);
      return;
    }
    let responsePointer = `#/paths/${pointer(route.path)}/${route.method}/responses/${key}`;
    if (typeof response.$ref === 'string') {
      responsePointer = response.$ref;
      response = document.components.responses[response.$ref.split('/').pop()!] as Record<string, unknown>;
    }
    this.checked += 1;
    const content = response.content as Record<string, unknown> | undefined;
    if (!content) {
      if (payload.length > 0) this.violations.push(`${where}: a body where the document has none`);
      return;
    }
    const type = contentType.split(';')[0]!.trim();
    if (!(type in content)) {
      this.violations.push(`${where}: content type ${type} not documented`);
      return;
    }
    const ref = `doc-${documentKey}${responsePointer}/content/${pointer(type)}/schema`;
    let validate = this.compiled.get(ref);
    if (!validate) this.compiled.set(ref, (validate = this.ajv.compile({ $ref: ref })));
    let body: unknown;
    try {
      body = JSON.parse(payload);
    } catch {
      this.violations.push(`${where}: body is not JSON`);
      return;
    }
    if (!validate(body)) {
      const errors = this.ajv.errorsText(validate.errors);
      this.violations.push(`${where}: ${errors} in ${payload.slice(0, 300)}`);
    }
  }

  /** An onSend hook that checks every response of `app` (register before `ready()`). */
  install(app: FastifyInstance): void {
    app.addHook('onSend', async (request, reply, payload) => {
      if (typeof payload === 'string' || payload === null || payload === undefined) {
        const contentType = String(reply.getHeader('content-type') ?? '');
        this.check(
          request.method,
          request.url,
          reply.statusCode,
          contentType,
          (payload as string | null) ?? '',
        );
      }
      return payload;
    });
  }
}
