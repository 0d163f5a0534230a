import type { FastifyReply, FastifyRequest } from 'fastify';

/** For responses that depend on who asks: no shared cache keeps them, no cache stores them. */
export const PRIVATE_NO_STORE = 'private, no-store';

/**
 * onSend hook for the resource API. A request with credentials (a cookie or Authorization) may see
 * the caller's private rows: `private, no-store`. An anonymous answer may be cached, but only for
 * requests without credentials (`Vary`), so a cache never hands it to a signed-in caller or back.
 */
export function cacheByCaller(
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
  done: (error: null, payload: unknown) => void,
): void {
  if (!reply.hasHeader('cache-control')) {
    if (request.headers.cookie !== undefined || request.headers.authorization !== undefined || request.caller)
      reply.header('cache-control', PRIVATE_NO_STORE);
    else reply.header('vary', 'Cookie, Authorization');
  }
  done(null, payload);
}
