import { Type } from '@sinclair/typebox';
import { defineEndpoint, type AnyEndpoint } from './endpoint.ts';
import { Envelope } from './envelope-schema.ts';

/**
 * `GET /endpoints`: the method and path of every JSON endpoint (page-only ones left out) and the
 * resource API's base path, for the typed client (`citadel/client`), which names its methods from
 * them at run time (the same rule as its types: see docs/client.md). The auth OpenAPI document
 * (`GET /docs`) says the same and more; this is the small list a browser bundle can afford.
 */
export function clientRoutesEndpoint(endpoints: readonly AnyEndpoint[], apiBaseUrl: string | null) {
  const routes = endpoints
    .filter((endpoint) => !endpoint.pageOnly)
    .map((endpoint) => ({ method: endpoint.method, path: endpoint.path }));
  routes.push({ method: 'GET', path: '/endpoints' });
  return defineEndpoint({
    method: 'GET',
    path: '/endpoints',
    action: 'endpoints.index',
    auth: 'anonymous',
    alwaysJson: true,
    summary: 'The JSON endpoints (method and path) and the resource API base path, for the typed client',
    responses: {
      200: Envelope({
        data: Type.Object({
          endpoints: Type.Array(Type.Object({ method: Type.String(), path: Type.String() })),
          api: Type.Union([Type.String(), Type.Null()]),
        }),
      }),
    },
    async handler() {
      return { status: 'success', data: { endpoints: routes, api: apiBaseUrl } };
    },
  });
}
