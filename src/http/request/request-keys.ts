import type { FastifyRequest } from 'fastify';
import { findForbiddenKey, ForbiddenKeyError, nameHasForbiddenKey } from '../../core/request-keys.ts';

/**
 * preValidation hook on every Citadel route: a query parameter, bracket
 * segment or body key named `__proto__`, `constructor` or `prototype` refuses the request before
 * any handler copies the data. Registered after the body parsers (a multipart body is read into
 * `request.body` by the preValidation hook before it, src/http/request/multipart-body.ts), so JSON, form
 * and multipart bodies are all seen parsed.
 */
export function refuseForbiddenKeys(request: FastifyRequest): void {
  const query = request.query;
  if (query !== null && typeof query === 'object') {
    for (const name of Object.keys(query)) {
      if (nameHasForbiddenKey(name)) throw new ForbiddenKeyError(name);
      // A host's own query parser (embedded mode) may have built nested objects already.
      const nested = findForbiddenKey((query as Record<string, unknown>)[name], name);
      if (nested !== null) throw new ForbiddenKeyError(nested);
    }
  }
  const body = request.body;
  if (body !== null && typeof body === 'object') {
    const found = findForbiddenKey(body, '');
    if (found !== null) throw new ForbiddenKeyError(found);
  }
}

/** @fastify/multipart refuses `__proto__` and `constructor` field names itself, with this code. */
export function isMultipartPrototypeViolation(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === 'FST_PROTO_VIOLATION';
}
