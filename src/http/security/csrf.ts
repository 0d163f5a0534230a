import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomToken, safeEqual } from '../../core/crypto.ts';
import { isCsrfSafeByConstruction } from '../request/negotiation.ts';
import { HttpError } from '../../core/errors.ts';

const SESSION_KEY = 'csrf';
const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The session's CSRF token, created on first use; forms carry it in the `_csrf` field. */
export function csrfToken(request: FastifyRequest): string {
  let token = request.session.get<string>(SESSION_KEY);
  if (!token) {
    token = randomToken(32);
    request.session.set(SESSION_KEY, token);
  }
  return token;
}

export class CsrfError extends HttpError {
  override name = 'CsrfError';
  constructor(message = 'The form has expired or was not sent from this site. Please try again.') {
    super(403, message);
  }
}

/**
 * preHandler (runs after the body is parsed). Fetch Metadata first: a browser that
 * says the request comes from another site is refused for every unsafe method. Then only what a
 * cross-site page can send without a CORS preflight (which is never granted) needs the session's
 * token in `_csrf` (or the X-CSRF-Token header): a POST with a form, multipart or text/plain body,
 * or none. PUT, PATCH and DELETE always need a preflight, so they are safe by construction.
 */
export function verifyCsrf(request: FastifyRequest, _reply?: FastifyReply): void {
  if (!UNSAFE_METHODS.has(request.method)) return;
  if (request.headers['sec-fetch-site'] === 'cross-site' && !request.routeOptions.config.cors)
    throw new CsrfError('Requests from other sites are not accepted.');
  const { csrfExempt, cors } = request.routeOptions.config;
  if (request.method !== 'POST' || csrfExempt || cors) return;
  if (isCsrfSafeByConstruction(request)) return;
  const body = request.body as Record<string, unknown> | undefined;
  const sent = (body && typeof body === 'object' ? body._csrf : undefined) ?? request.headers['x-csrf-token'];
  const expected = request.session.get<string>(SESSION_KEY);
  if (typeof sent !== 'string' || !expected || !safeEqual(sent, expected)) throw new CsrfError();
}
