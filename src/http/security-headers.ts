import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import helmet, { type HelmetOptions } from 'helmet';

/**
 * Helmet's headers for the given options, computed once. They depend on the options only (no
 * per-request nonces here), so running helmet against a collecting response at start-up gives
 * exactly what it would set on every request.
 */
export function computeSecurityHeaders(options: HelmetOptions): Record<string, string> {
  const headers: Record<string, string> = {};
  const collector = {
    setHeader(name: string, value: string | number | readonly string[]) {
      headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
    },
    removeHeader(name: string) {
      delete headers[name];
    },
  };
  helmet(options)({} as IncomingMessage, collector as unknown as ServerResponse, (error?: unknown) => {
    if (error) throw error;
  });
  return headers;
}

/**
 * The security headers on every response, set by one hook from a precomputed object. (The
 * @fastify/helmet plugin built the helmet middleware anew on every request, from two hooks.)
 */
export const securityHeaders = fp(async function securityHeaders(
  app: FastifyInstance,
  options: HelmetOptions,
) {
  const headers = computeSecurityHeaders(options);
  app.addHook('onRequest', (_request, reply, done) => {
    reply.headers(headers);
    done();
  });
});
