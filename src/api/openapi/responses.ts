import { problemTitle } from '../http/problem.ts';
import { MAX_BULK_ITEMS } from '../write/write.ts';
import type { OpenApiSchema } from './json-schema.ts';
import { JSON_TYPE, PROBLEM, ref } from './names.ts';

export function dataEnvelope(data: OpenApiSchema): OpenApiSchema {
  return {
    type: 'object',
    properties: { status: { const: 'success' }, data },
    required: ['status', 'data'],
    additionalProperties: false,
  };
}

export function json(schema: OpenApiSchema, description: string, headers?: Record<string, unknown>) {
  return { description, ...(headers ? { headers } : {}), content: { [JSON_TYPE]: { schema } } };
}

/** Concurrency and idempotency headers (src/api/write/etag.ts and idempotency.ts). */
export const ETAG_HEADER = {
  ETag: {
    description: 'The strong entity tag of the record, for `If-Match` and `If-None-Match`.',
    schema: { type: 'string' },
  },
};
export const IF_MATCH = {
  name: 'If-Match',
  in: 'header',
  description:
    'Write only if the record still has one of these ETags (or any, with `*`); otherwise 412 and nothing is written.',
  schema: { type: 'string' },
};
export const IF_NONE_MATCH = {
  name: 'If-None-Match',
  in: 'header',
  description: 'The ETag of the copy the client holds: 304 without a body while it is current.',
  schema: { type: 'string' },
};
export const IDEMPOTENCY_KEY = {
  name: 'Idempotency-Key',
  in: 'header',
  description:
    'Makes the POST safe to retry (IETF draft "The Idempotency-Key HTTP Header Field"): kept with the caller, a hash of the request and its response for 24 hours. The same key with the same body replays the stored response (`Idempotency-Replayed: true`); with another body → 422; while the first request runs → 409.',
  schema: { type: 'string', minLength: 1, maxLength: 255 },
};

/** Problem responses by status: one component each. */
const ERROR_RESPONSES: Record<number, { name: string; description: string }> = {
  400: {
    name: 'BadRequest',
    description:
      'A query parameter the operation does not accept (named in `invalid_params`), or a body that is not JSON.',
  },
  401: {
    name: 'Unauthorized',
    description: 'No caller where one is required, or a bearer token that is not valid (on any operation).',
  },
  403: {
    name: 'Forbidden',
    description:
      'The bearer token lacks the ability this operation requires; on a tenant-scoped resource also: no active organization, or a role without the permission.',
  },
  404: { name: 'NotFound', description: 'No such record (or an id that is not a canonical key).' },
  409: {
    name: 'Conflict',
    description:
      'A unique or foreign-key constraint was violated, or (POST) the first request with this `Idempotency-Key` is still running.',
  },
  412: {
    name: 'PreconditionFailed',
    description: '`If-Match` names no current ETag of the record: it changed since it was read.',
  },
  413: {
    name: 'ContentTooLarge',
    description: `More than ${MAX_BULK_ITEMS} items in a bulk array or a nested relation, or a body too large.`,
  },
  415: { name: 'UnsupportedMediaType', description: 'The body must be JSON.' },
  422: {
    name: 'UnprocessableContent',
    description:
      'The payload failed validation (see `invalid_params`), a filter names an integer outside the range of its column, or (POST) the `Idempotency-Key` was used with another request.',
  },
  429: {
    name: 'TooManyRequests',
    description:
      'Too many open live streams (per user or per server): try again after `Retry-After` seconds.',
  },
  500: { name: 'InternalError', description: 'An unexpected error; details only in the server log.' },
};

/** Hooks may throw an HttpError with a status of their choice. */
const HOOK_ERROR = {
  name: 'HookError',
  description: 'A status chosen by a resource hook, as problem details.',
};

export function errorResponses(codes: number[]): Record<string, unknown> {
  return Object.fromEntries(
    [...new Set(codes)]
      .sort((a, b) => a - b)
      .map((code) => [String(code), ref('responses', ERROR_RESPONSES[code]!.name)]),
  );
}

export const PROBLEM_SCHEMA: OpenApiSchema = {
  type: 'object',
  description: 'RFC 9457 problem details.',
  properties: {
    type: {
      type: 'string',
      description: 'A URI reference naming the problem type.',
      examples: ['about:blank'],
    },
    title: {
      type: 'string',
      description: 'The RFC 9110 reason phrase of the status.',
      examples: [problemTitle(422)],
    },
    status: { type: 'integer', examples: [422] },
    detail: { type: 'string' },
    instance: { type: 'string', description: 'The request path.' },
    invalid_params: {
      type: 'array',
      description:
        'One entry per problem; `name` is a query parameter, or a path into the payload such as `[1].title` or `comments[0].body`.',
      items: {
        type: 'object',
        properties: { name: { type: 'string', examples: ['comments[0].body'] }, reason: { type: 'string' } },
        required: ['name', 'reason'],
        additionalProperties: false,
      },
    },
  },
  required: ['type', 'title', 'status', 'detail', 'instance'],
  additionalProperties: false,
};

export const PAGINATION_SCHEMA: OpenApiSchema = {
  type: 'object',
  properties: {
    page: { type: 'integer', minimum: 1 },
    limit: { type: 'integer', minimum: 1 },
    total: {
      type: ['integer', 'null'],
      minimum: 0,
      description: 'Null with `count=none`; the planner estimate with `count=estimated` on PostgreSQL.',
    },
    totalPages: { type: ['integer', 'null'], minimum: 0, description: 'Null with `count=none`.' },
    hasMore: { type: 'boolean', description: 'Whether a record exists past this page.' },
    nextPage: { type: ['integer', 'null'] },
    prevPage: { type: ['integer', 'null'] },
    nextCursor: {
      type: ['string', 'null'],
      description:
        'Send as `cursor` (with the same query) for the next page by keyset; null on the last page.',
    },
    totalEstimated: {
      type: 'boolean',
      description: 'Only with `count=estimated`: whether `total` is an estimate.',
    },
  },
  required: ['page', 'limit', 'total', 'totalPages', 'hasMore', 'nextPage', 'prevPage', 'nextCursor'],
  additionalProperties: false,
};

/** `components.responses`: one problem response per status, and the hooks' own. */
export function errorResponseComponents(): Record<string, unknown> {
  return Object.fromEntries(
    [...Object.values(ERROR_RESPONSES), HOOK_ERROR].map(({ name, description }) => [
      name,
      { description, content: { [PROBLEM]: { schema: ref('schemas', 'Problem') } } },
    ]),
  );
}
