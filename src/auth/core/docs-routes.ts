import type { FastifyInstance } from 'fastify';
import { serveDocs } from '../../http/docs-ui/routes.ts';
import { SESSION_COOKIE } from '../../http/sessions/plugin.ts';
import { buildAuthOpenApiDocument } from './endpoint-openapi.ts';
import type { ServedEndpointGroup } from './plugin-host.ts';
import { pluginRateLimits } from './plugin-limit-routes.ts';

/** `GET /docs`: the auth endpoints' OpenAPI document; `GET /docs/ui`: its interactive page. */
export function serveAuthDocs(app: FastifyInstance, groups: readonly ServedEndpointGroup[]): void {
  const { config } = app;
  const document = buildAuthOpenApiDocument(groups, {
    title: config.appName,
    // Relative: the document works wherever the page that loads it is served.
    serverUrl: config.basePath || '/',
    cookieName: SESSION_COOKIE,
    openapi: config.openapi,
    rateLimits: pluginRateLimits(groups.flatMap((group) => (group.plugin ? [group.plugin] : []))),
  });
  serveDocs(app, {
    documentUrl: '/docs',
    uiUrl: '/docs/ui',
    title: config.appName,
    version: 'authentication',
    mountPath: config.basePath,
    document: JSON.stringify(document),
  });
}
