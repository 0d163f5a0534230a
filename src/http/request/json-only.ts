import type { FastifyRequest } from 'fastify';
import { HttpError } from '../../core/errors.ts';
import { clientKind } from './negotiation.ts';

/** What a JSON-only route tells a client that sent anything else. */
export const JSON_ONLY_MESSAGE = 'This endpoint takes a JSON body (Content-Type: application/json).';

const JSON_MEDIA_TYPE = /^application\/json\s*(?:;|$)/i;

/** 415: the route reads JSON only; the error handlers shape the answer. */
export class UnsupportedMediaTypeError extends HttpError {
  override name = 'UnsupportedMediaTypeError';
  constructor() {
    super(415, JSON_ONLY_MESSAGE);
  }
}

/**
 * preValidation hook on every route: a route declared `config: { jsonOnly: true }` (the passkey
 * ceremonies, whose only client is the page script) answers a form, multipart, text/plain or any
 * other non-JSON body with 415 and the usual envelope or problem details, and so does a bodyless
 * request from a form client (an HTML Accept, no JSON Content-Type, no X-Spa), which such a route
 * has no page for. It runs before the CSRF check, so the answer does not depend on `_csrf`.
 */
export function refuseNonJsonBodies(request: FastifyRequest): void {
  if (!request.routeOptions.config?.jsonOnly) return;
  const type = request.headers['content-type'];
  const refused = type === undefined ? clientKind(request) === 'form' : !JSON_MEDIA_TYPE.test(type);
  if (refused) throw new UnsupportedMediaTypeError();
}
