import type { FastifyRequest } from 'fastify';
import { NotFoundError } from '../../core/errors.ts';

const DOT_SEGMENTS: ReadonlySet<string> = new Set(['.', '..']);

/**
 * onRequest step: no route receives `.` or `..` as a path parameter. The router takes a raw `..`
 * (or `%2e%2e`, which it decodes) as a parameter's value, where a browser or a proxy would have
 * removed the segment and reached another route: either way the request means something other
 * than the route it matched, so it is answered 404 before any handler reads it. A wildcard's value
 * is checked segment by segment.
 */
export function refuseDotSegments(request: FastifyRequest): void {
  const params = request.params;
  if (params === null || typeof params !== 'object') return;
  for (const [name, value] of Object.entries(params as Record<string, unknown>)) {
    if (typeof value !== 'string') continue;
    const dotted =
      name === '*' ? value.split('/').some((segment) => DOT_SEGMENTS.has(segment)) : DOT_SEGMENTS.has(value);
    if (dotted) throw new NotFoundError();
  }
}
