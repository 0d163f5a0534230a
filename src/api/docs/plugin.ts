import type { FastifyInstance } from 'fastify';
import type { ApiConfig } from '../resource/types.ts';
import { buildOpenApiDocument } from '../openapi/document.ts';
import type { Dialect } from '../../db/url.ts';
import { serveDocs } from '../../http/docs-ui/routes.ts';

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
    serveDocs(app, {
      documentUrl,
      uiUrl,
      title: api.apiName,
      version,
      mountPath,
      document: JSON.stringify(
        mountPath
          ? { ...document, servers: servers.map((s) => ({ ...s, url: mountPath + s.url })) }
          : document,
      ),
    });
  }
}
