import type { FastifyInstance } from 'fastify';
import type { ApiConfig } from '../types.ts';
import { buildOpenApiDocument } from '../openapi/document.ts';
import type { Dialect } from '../../db/url.ts';
import { ASSETS, loadAsset } from './assets.ts';
import { docsPage } from './page.ts';

export const DEFAULT_DOCS_ROUTE = 'docs';
export const DEFAULT_DOCS_UI_ROUTE = 'docs/ui';

/** `/api` + `v1` + `docs/` → `/api/v1/docs`: one slash between segments, none at the end. */
export function joinPath(...segments: string[]): string {
  const parts = segments.flatMap((segment) => segment.split('/')).filter(Boolean);
  return `/${parts.join('/')}`;
}

/**
 * Per published version: the OpenAPI JSON at `{apiBaseUrl}/{version}/{docs.route}` and the
 * interactive UI at `{apiBaseUrl}/{version}/{docs.uiRoute}`, with its assets under `.../assets/`.
 * Everything is served from this process: the page works offline and under `script-src 'self'`.
 */
export async function apiDocs(app: FastifyInstance, options: { api: ApiConfig }): Promise<void> {
  const { api } = options;
  const base = api.apiBaseUrl || '/api';
  for (const publication of api.publications) {
    const { version } = publication;
    const documentUrl = joinPath(base, version, publication.docs?.route ?? DEFAULT_DOCS_ROUTE);
    const uiUrl = joinPath(base, version, publication.docs?.uiRoute ?? DEFAULT_DOCS_UI_ROUTE);
    const assetsUrl = `${uiUrl}/assets`;
    // Routes are relative to where Citadel is mounted; the page's and the document's URLs are
    // the browser's, mount path included ("Try it out" calls the server URL).
    const mountPath = app.hasDecorator('config') ? app.config.basePath : '';
    // Built (and checked) at start-up: a configuration the generator cannot describe fails early.
    const config = app.hasDecorator('config') ? app.config : undefined;
    const document = buildOpenApiDocument(api, version, {
      dialect: (app as { dialect?: Dialect }).dialect,
      openapi: api.openapi ?? config?.openapi,
      ids: { alphabet: config?.sqidsAlphabet, minLength: config?.sqidsMinLength },
    });
    const servers = document.servers as { url: string }[];
    const body = JSON.stringify(
      mountPath ? { ...document, servers: servers.map((s) => ({ ...s, url: mountPath + s.url })) } : document,
    );
    const page = docsPage({
      title: api.apiName,
      version,
      documentUrl: mountPath + documentUrl,
      assetsUrl: mountPath + assetsUrl,
    }).toString();

    app.get(documentUrl, async (_request, reply) => {
      return reply.type('application/json; charset=utf-8').header('cache-control', 'no-cache').send(body);
    });
    app.get(uiUrl, async (_request, reply) => {
      return reply.type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(page);
    });
    app.get<{ Params: { file: string } }>(`${assetsUrl}/:file`, async (request, reply) => {
      const bytes = Object.hasOwn(ASSETS, request.params.file) ? loadAsset(request.params.file) : undefined;
      if (!bytes) return reply.callNotFound();
      return reply
        .type(ASSETS[request.params.file]!.type)
        .header('cache-control', 'public, max-age=3600')
        .header('x-content-type-options', 'nosniff')
        .send(await bytes);
    });
  }
}
