import type { FastifyInstance } from 'fastify';
import { NotFoundError } from '../../core/errors.ts';
import { ASSETS, loadAsset } from './assets.ts';
import { docsPage } from './page.ts';

export interface DocsRoutes {
  /** Where the OpenAPI JSON is served, relative to where Citadel is mounted. */
  documentUrl: string;
  /** Where the interactive page is served; its assets live under `<uiUrl>/assets/`. */
  uiUrl: string;
  /** The document, as JSON text. */
  document: string;
  title: string;
  version: string;
  /** The mount path the browser sees in front of both URLs (embedded under a prefix). */
  mountPath: string;
}

/**
 * One OpenAPI document and its interactive UI: the JSON, the page, and the page's assets served
 * from this process (never a CDN), so it works offline and under `script-src 'self'`.
 */
export function serveDocs(app: FastifyInstance, options: DocsRoutes): void {
  const { documentUrl, uiUrl, document, mountPath } = options;
  const assetsUrl = `${uiUrl}/assets`;
  const page = docsPage({
    title: options.title,
    version: options.version,
    documentUrl: mountPath + documentUrl,
    assetsUrl: mountPath + assetsUrl,
  }).toString();

  app.get(documentUrl, async (_request, reply) =>
    reply.type('application/json; charset=utf-8').header('cache-control', 'no-cache').send(document),
  );
  app.get(uiUrl, async (_request, reply) =>
    reply.type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(page),
  );
  app.get<{ Params: { file: string } }>(`${assetsUrl}/:file`, async (request, reply) => {
    const bytes = Object.hasOwn(ASSETS, request.params.file) ? loadAsset(request.params.file) : undefined;
    // Not `callNotFound()`: the not-found handler sees this GET route at the path and answers 405.
    if (!bytes) throw new NotFoundError();
    return reply
      .type(ASSETS[request.params.file]!.type)
      .header('cache-control', 'public, max-age=3600')
      .header('x-content-type-options', 'nosniff')
      .send(await bytes);
  });
}
