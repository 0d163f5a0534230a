import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import {
  AuthenticationRequiredError,
  HttpError,
  TooManyRequestsError,
  UNEXPECTED_ERROR_MESSAGE,
} from '../../core/errors.ts';
import { ForbiddenKeyError } from '../../core/request-keys.ts';
import { isMultipartPrototypeViolation } from '../request/request-keys.ts';
import { clientKind } from '../request/negotiation.ts';
import { renderPage, respond, type Outcome } from './respond.ts';
import { publicPath } from '../request/base-path.ts';
import { errorPage } from '../html/error-page.ts';
import { outageAs503 } from './outage.ts';
import { PRIVATE_NO_STORE } from './cache-control.ts';
import { callerIsGone } from '../security/caller-gone.ts';
import { written, type Text } from '../../core/i18n/catalog.ts';
import { validationText } from '../i18n/validation-text.ts';
import { coreMessages } from '../../core/i18n/messages/index.ts';
import { requestLanguage } from '../i18n/request-language.ts';

const REFUSALS_ON_THE_FORM = new Set([401, 403, 429]);

/** Fastify's and the body parser's own messages that the core's catalog has, by their English text. */
const KNOWN_TEXTS = new Map<string, Text>(
  (['error.notFound', 'error.invalidJson', 'error.bodyTooLarge'] as const).map((key) => [
    String(coreMessages.text(key)),
    coreMessages.text(key),
  ]),
);

/** A client error's message in the reader's language when the catalog has it, else as it is. */
function knownText(message: string): Text {
  return KNOWN_TEXTS.get(message) ?? message;
}

/** Fastify's own client errors (bad JSON, unsupported type, too large) keep their status. */
function isFastifyClientError(error: FastifyError): boolean {
  return typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500;
}

/** Map any error to the one outcome the client sees; unexpected errors are logged, never shown. */
export function outcomeForError(request: FastifyRequest, thrown: FastifyError | Error): Outcome {
  const action = request.routeOptions.config?.action ?? 'error';
  const error = isMultipartPrototypeViolation(thrown) ? new ForbiddenKeyError('body') : thrown;
  // Auth endpoints answer a key they refuse as any field they cannot accept: 422 `errors.<field>`.
  if (error instanceof ForbiddenKeyError) {
    return {
      action,
      status: 'error',
      statusCode: 422,
      message: coreMessages.text('error.validation'),
      errors: { [error.field]: coreMessages.text('invalid.reservedKey') },
    };
  }
  if (error instanceof HttpError) {
    return {
      action: error.options.action ?? action,
      status: 'error',
      statusCode: error.statusCode,
      message: error.text,
      redirectTo: error.options.redirectTo,
      errors: error.options.errors,
      data: error.options.data,
    };
  }
  const fastifyError = error as FastifyError;
  if (fastifyError.validation) {
    const errors: Record<string, Text> = {};
    for (const issue of fastifyError.validation) {
      const field =
        issue.instancePath.replace(/^\//, '').replace(/\//g, '.') ||
        String(issue.params?.missingProperty ?? 'body');
      errors[field] ??= validationText(issue);
    }
    return {
      action,
      status: 'error',
      statusCode: 422,
      message: coreMessages.text('error.validation'),
      errors,
    };
  }
  if (isFastifyClientError(fastifyError)) {
    return {
      action,
      status: 'error',
      statusCode: fastifyError.statusCode!,
      message: knownText(fastifyError.message),
    };
  }
  request.log.error({ err: error }, 'unhandled error');
  return { action, status: 'error', statusCode: 500, message: UNEXPECTED_ERROR_MESSAGE };
}

export async function authErrorHandler(
  thrown: FastifyError | Error,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  let error = outageAs503(thrown, request);
  // A write for a user deleted meanwhile: the caller is gone, not a fault.
  if (await callerIsGone(request, error).catch(() => false)) error = new AuthenticationRequiredError();
  const outcome = outcomeForError(request, error);
  if (error instanceof HttpError && error.options.headers) reply.headers(error.options.headers);
  if (error instanceof TooManyRequestsError) reply.header('retry-after', String(error.retryAfter));
  // RFC 9110 §15.5.2: a 401 names the scheme that would work (RFC 6750 Bearer; a bad token's
  // error sets its own `error="invalid_token"`).
  if (outcome.statusCode === 401 && !reply.hasHeader('www-authenticate'))
    reply.header('www-authenticate', 'Bearer');
  if (clientKind(request) !== 'form') return respond(request, reply, outcome);
  try {
    return await answerForm(request, reply, outcome);
  } catch (renderError) {
    // A page that cannot render (a route's page without the props it needs) must not reach
    // Fastify's last-resort handler, which shows the error's message: the generic answer instead.
    request.log.error({ err: renderError }, 'error page failed to render');
    return reply
      .code(500)
      .header('cache-control', PRIVATE_NO_STORE)
      .type('text/plain; charset=utf-8')
      .send(written(UNEXPECTED_ERROR_MESSAGE, requestLanguage(request)));
  }
}

/** Form clients: field errors re-show the form; auth and step-up errors send the browser on. */
async function answerForm(request: FastifyRequest, reply: FastifyReply, outcome: Outcome) {
  const page = request.routeOptions.config?.page;
  if (outcome.statusCode === 422 && page) return renderPage(request, reply, page, outcome);
  if ((outcome.statusCode === 401 || outcome.statusCode === 403) && outcome.redirectTo) {
    if (outcome.message) request.session.flash('error', written(outcome.message, requestLanguage(request)));
    return reply.redirect(publicPath(request, outcome.redirectTo), 303);
  }
  // A refused form post (wrong password, disabled account, rate limit, expired CSRF token) shows
  // the same form again with the message and the input kept, not a dead-end error page.
  if (page && request.method === 'POST' && REFUSALS_ON_THE_FORM.has(outcome.statusCode ?? 0)) {
    return renderPage(request, reply, page, outcome);
  }
  return renderPage(request, reply, errorPage, outcome);
}
