import { STATUS_CODES } from 'node:http';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { HttpError, UNEXPECTED_ERROR_MESSAGE } from '../../core/errors.ts';
import type { InvalidParam } from '../resource/validation.ts';
import { outageAs503 } from '../../http/response/outage.ts';
import { knownPathAnswer } from '../../http/response/allow.ts';
import { publicPath } from '../../http/request/base-path.ts';
import { isMultipartPrototypeViolation } from '../../http/request/request-keys.ts';
import { ForbiddenKeyError } from '../../core/request-keys.ts';
import { written, type Language, type Text } from '../../core/i18n/catalog.ts';
import { coreMessages } from '../../core/i18n/messages/index.ts';
import { requestLanguage } from '../../http/i18n/request-language.ts';
import { bearerChallenge, withChallengeParams } from '../../auth/core/bearer-challenge.ts';

export const PROBLEM_TYPE = 'application/problem+json';

export interface ProblemDetails {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  invalid_params?: InvalidParam[];
}

// RFC 9110 renamed these; Node's STATUS_CODES still has the RFC 7231 names.
const RFC_9110_TITLES: Record<number, string> = { 413: 'Content Too Large', 422: 'Unprocessable Content' };

/** The `title` of a problem with this status (RFC 9110 reason phrases), in `language` when given. */
export function problemTitle(status: number, language?: Language): string {
  const key = `problem.${status}`;
  if (language && Object.hasOwn(coreMessages.en, key))
    return coreMessages.in(language)(key as keyof typeof coreMessages.en & `problem.${number}`);
  return RFC_9110_TITLES[status] ?? STATUS_CODES[status] ?? 'Error';
}

/** Set on Citadel's context by the Fastify plugin, whose routes see the URL with its prefix. */
const kInsideCitadel = Symbol.for('citadel.inside');

/**
 * The path the client asked for, without its query string (which may carry search text): the
 * host's own URL when it rewrote or stripped it (Express's `app.use`, Fastify's `rewriteUrl`), the
 * mount path put back when a Node or Fetch handler had it taken off.
 */
function instanceOf(request: FastifyRequest): string {
  const original = (request.raw as { originalUrl?: unknown }).originalUrl;
  const inside = (request.server as unknown as Record<symbol, unknown>)[kInsideCitadel] === true;
  const url =
    typeof original === 'string' && original.startsWith('/')
      ? original
      : inside
        ? request.url
        : publicPath(request, request.url);
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

export function sendProblem(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  detail: Text,
  invalidParams?: readonly { name: string; reason: Text }[],
) {
  // `type` stays the same in every language; `title`, `detail` and the reasons are the reader's.
  const language = requestLanguage(request);
  const body: ProblemDetails = {
    type: 'about:blank',
    title: problemTitle(status, language),
    status,
    detail: written(detail, language),
    instance: instanceOf(request),
  };
  if (invalidParams?.length)
    body.invalid_params = invalidParams.map((param) => ({
      ...param,
      reason: written(param.reason, language),
    }));
  return reply.code(status).type(PROBLEM_TYPE).send(JSON.stringify(body));
}

/**
 * RFC 9457 problem details for every error under the API prefix. HttpErrors keep their status and
 * message; Fastify's client errors (bad JSON, body too large, unsupported type) keep their status
 * with a fixed message; anything else is a generic 500, the details only in the log.
 */
export async function problemErrorHandler(
  thrown: FastifyError | Error,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  const error = isMultipartPrototypeViolation(thrown)
    ? new ForbiddenKeyError('body')
    : outageAs503(thrown, request);
  if (error instanceof HttpError) {
    if (error.options.headers) reply.headers(error.options.headers);
    // RFC 9110 §15.5.2: every 401 names a scheme; a bad token's own error says which.
    if (error.statusCode === 401) {
      const own = reply.getHeader('www-authenticate');
      const header = typeof own === 'string' ? own : 'Bearer';
      // Where a client learns how to get a token (the OAuth provider's resource metadata).
      const params = bearerChallenge(request.server.citadel);
      reply.header('www-authenticate', params ? withChallengeParams(header, params) : header);
    }
    const invalid =
      error.options.invalidParams ??
      (error.options.errors
        ? Object.entries(error.options.errors).map(([name, reason]) => ({ name, reason }))
        : undefined);
    return sendProblem(request, reply, error.statusCode, error.text, invalid);
  }
  const status = (error as FastifyError).statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    const detail =
      status === 413
        ? coreMessages.text('error.bodyTooLarge')
        : status === 415
          ? coreMessages.text('error.bodyNotJson')
          : status === 400
            ? coreMessages.text('error.bodyUnreadable')
            : coreMessages.text('error.status', { title: problemTitle(status, requestLanguage(request)) });
    return sendProblem(request, reply, status, detail);
  }
  request.log.error({ err: error }, 'unhandled resource API error');
  return sendProblem(request, reply, 500, UNEXPECTED_ERROR_MESSAGE);
}

export async function problemNotFound(request: FastifyRequest, reply: FastifyReply) {
  // A known path with another method: OPTIONS 204 or 405, both with Allow (RFC 9110).
  const known = knownPathAnswer(request, reply);
  if (known instanceof HttpError) return problemErrorHandler(known, request, reply);
  if (known) return known;
  return sendProblem(request, reply, 404, coreMessages.text('error.noResource'));
}
