import type { FastifyRequest } from 'fastify';
import { BadRequestError, HttpError } from '../../core/errors.ts';

/** Deeper JSON is refused before anything walks it recursively. */
export const MAX_JSON_DEPTH = 64;
/**
 * Rows one write request may create or change across all its levels. Every object in
 * a resource payload is a row (a record, a nested child or a nested parent: columns hold no JSON
 * objects), so counting objects bounds the rows from above.
 */
export const MAX_ROWS_PER_WRITE = 1000;

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/** Depth and object count of a parsed JSON value, walked with an explicit stack (no recursion). */
export function measurePayload(value: unknown, maxDepth: number): { depth: number; objects: number } {
  let deepest = 0;
  let objects = 0;
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 1 }];
  while (stack.length > 0) {
    const { value: current, depth } = stack.pop()!;
    if (current === null || typeof current !== 'object') continue;
    if (depth > deepest) deepest = depth;
    if (deepest > maxDepth) break;
    const items = Array.isArray(current) ? current : Object.values(current);
    if (!Array.isArray(current)) objects += 1;
    for (const item of items)
      if (item !== null && typeof item === 'object') stack.push({ value: item, depth: depth + 1 });
  }
  return { depth: deepest, objects };
}

class ContentTooLargeError extends HttpError {
  override name = 'ContentTooLargeError';
  constructor() {
    super(
      413,
      `A write request may create or change at most ${MAX_ROWS_PER_WRITE} rows across all its levels.`,
    );
  }
}

/** preValidation hook of the resource API, before any recursive walk of the body. */
export function limitPayloadShape(request: FastifyRequest): void {
  if (request.body === null || typeof request.body !== 'object') return;
  const { depth, objects } = measurePayload(request.body, MAX_JSON_DEPTH);
  if (depth > MAX_JSON_DEPTH) {
    throw new BadRequestError(`The request body nests deeper than ${MAX_JSON_DEPTH} levels.`, {
      invalidParams: [{ name: '(body)', reason: `nests deeper than ${MAX_JSON_DEPTH} levels` }],
    });
  }
  if (WRITE_METHODS.has(request.method) && objects > MAX_ROWS_PER_WRITE) throw new ContentTooLargeError();
}
