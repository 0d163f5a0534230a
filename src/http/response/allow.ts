import type { FastifyReply, FastifyRequest } from 'fastify';
import { HttpError } from '../../core/errors.ts';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/**
 * The methods the router answers at this request's path (HEAD comes with every GET, OPTIONS with
 * any), or null when no route has the path: then it is a 404, not a 405 (RFC 9110 §15.5.6).
 */
export function allowedMethods(request: FastifyRequest): string | null {
  const query = request.url.indexOf('?');
  const url = query === -1 ? request.url : request.url.slice(0, query);
  const allowed: string[] = METHODS.filter((method) => request.server.findRoute({ method, url }) !== null);
  return allowed.length === 0 ? null : [...allowed, 'OPTIONS'].join(', ');
}

/** 405 with the `Allow` header RFC 9110 §15.5.6 requires. */
export class MethodNotAllowedError extends HttpError {
  override name = 'MethodNotAllowedError';
  constructor(allow: string, message = 'This method is not supported at this path.') {
    super(405, message, { headers: { allow } });
  }
}

/**
 * For a request no route matched: OPTIONS on a known path is a 204 with `Allow`, another method on
 * a known path a 405 error to answer; null when the path is unknown (a 404).
 */
export function knownPathAnswer(
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply | HttpError | null {
  const allow = allowedMethods(request);
  if (allow === null) return null;
  if (request.method === 'OPTIONS') return reply.code(204).header('allow', allow).send();
  return new MethodNotAllowedError(allow, `${request.method} is not supported at this path.`);
}
