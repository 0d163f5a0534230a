import type { FastifyRequest } from 'fastify';

/** The three kinds of client: JSON API, single-page app (`X-Spa: true`), HTML form. */
export type ClientKind = 'json' | 'spa' | 'form';

export function clientKind(request: FastifyRequest): ClientKind {
  if (request.headers['x-spa'] === 'true') return 'spa';
  // A JSON resource answers JSON whatever the Accept (none, */*, application/jwk-set+json, text/html):
  // the routes that declare so, and every `/.well-known/` document (RFC 8615), a plugin's too.
  const route = request.routeOptions;
  if (route?.config?.alwaysJson || route?.url?.includes('/.well-known/')) return 'json';
  const accept = request.headers.accept ?? '';
  const contentType = request.headers['content-type'] ?? '';
  if (accept.includes('application/json') || contentType.includes('application/json')) return 'json';
  return 'form';
}

/**
 * Requests that a cross-site page cannot forge without CORS: a JSON body, the X-Spa header or an
 * Authorization header all need a preflight, which we never grant. Everything else needs `_csrf`.
 */
export function isCsrfSafeByConstruction(request: FastifyRequest): boolean {
  const contentType = request.headers['content-type'] ?? '';
  return (
    contentType.startsWith('application/json') ||
    request.headers['x-spa'] === 'true' ||
    request.headers.authorization !== undefined
  );
}
