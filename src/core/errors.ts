import type { Text } from './i18n/catalog.ts';
import { coreMessages } from './i18n/messages/index.ts';

/**
 * The one error hierarchy. Services throw these; `http/response/error-handler.ts` maps them to the auth
 * envelope (or problem details for the resource API) in one place. Anything else is a 500 with a
 * generic message and the details only in the log.
 */
export interface HttpErrorOptions {
  /** The envelope's `action` (defaults to the route's action). */
  action?: string;
  /** Per-field texts (`errors.<field>`), in the reader's language when they come from a catalog. */
  errors?: Record<string, Text>;
  redirectTo?: string;
  data?: Record<string, unknown>;
  headers?: Record<string, string>;
  /** Problem-details extras for the resource API: `invalid_params`. */
  invalidParams?: { name: string; reason: string }[];
}

/** What a client is told of an unexpected error (the error itself is logged, never shown). */
export const UNEXPECTED_ERROR_MESSAGE = coreMessages.text('error.unexpected');

/** Base of every error with an HTTP status; the error handlers turn it into the envelope or problem details. */
export class HttpError extends Error {
  override name = 'HttpError';
  readonly statusCode: number;
  readonly options: HttpErrorOptions;
  /** What the reader is told: `message` is its English text (for logs). */
  readonly text: Text;

  constructor(statusCode: number, message: Text, options: HttpErrorOptions = {}) {
    super(String(message));
    this.text = message;
    this.statusCode = statusCode;
    this.options = options;
  }
}

/** 422 with per-field messages (`errors`). */
export class ValidationError extends HttpError {
  override name = 'ValidationError';
  constructor(
    errors: Record<string, Text>,
    message: Text = coreMessages.text('error.validation'),
    options: HttpErrorOptions = {},
  ) {
    super(422, message, { ...options, errors });
  }
}

/** 400: a malformed request. */
export class BadRequestError extends HttpError {
  override name = 'BadRequestError';
  constructor(message: Text, options: HttpErrorOptions = {}) {
    super(400, message, options);
  }
}

/** 401: no caller; form clients are sent to the sign-in page. */
export class AuthenticationRequiredError extends HttpError {
  override name = 'AuthenticationRequiredError';
  constructor(
    message: Text = coreMessages.text('error.authenticationRequired'),
    options: HttpErrorOptions = {},
  ) {
    super(401, message, { redirectTo: '/login', ...options });
  }
}

/** 403: the caller may not do this. */
export class ForbiddenError extends HttpError {
  override name = 'ForbiddenError';
  constructor(message: Text = coreMessages.text('error.forbidden'), options: HttpErrorOptions = {}) {
    super(403, message, options);
  }
}

/** 403 for a bearer token without the ability (RFC 6750 §3.1 `insufficient_scope`). */
export class InsufficientScopeError extends ForbiddenError {
  override name = 'InsufficientScopeError';
  constructor(ability: string) {
    super(coreMessages.text('error.insufficientScope', { ability }), {
      headers: { 'www-authenticate': `Bearer error="insufficient_scope", scope="${ability}"` },
    });
  }
}

/** 404. */
export class NotFoundError extends HttpError {
  override name = 'NotFoundError';
  constructor(message: Text = coreMessages.text('error.notFound'), options: HttpErrorOptions = {}) {
    super(404, message, options);
  }
}

/** 409: the request clashes with the current state (a taken username, a duplicate key). */
export class ConflictError extends HttpError {
  override name = 'ConflictError';
  constructor(message: Text = coreMessages.text('error.conflict'), options: HttpErrorOptions = {}) {
    super(409, message, options);
  }
}

/** 429 with a Retry-After header (seconds). */
export class TooManyRequestsError extends HttpError {
  override name = 'TooManyRequestsError';
  readonly retryAfter: number;
  constructor(
    retryAfterSeconds: number,
    message: Text = coreMessages.text('error.tooManyAttempts'),
    options: HttpErrorOptions = {},
  ) {
    const retryAfter = Math.max(1, Math.ceil(retryAfterSeconds));
    super(429, message, { ...options, headers: { ...options.headers, 'retry-after': String(retryAfter) } });
    this.retryAfter = retryAfter;
  }
}

/** The envelope's `action` of a change refused while an administrator acts as the user. */
export const IMPERSONATION_FORBIDDEN_ACTION = 'impersonation.forbidden';

/**
 * 403 `impersonation.forbidden`: a session acting as another user may not change how that account
 * proves who it is or who may act for it, so nothing it does outlasts the impersonation.
 */
export class ImpersonationForbiddenError extends ForbiddenError {
  override name = 'ImpersonationForbiddenError';
  constructor() {
    super(coreMessages.text('error.impersonation'), {
      action: IMPERSONATION_FORBIDDEN_ACTION,
    });
  }
}

/** A configuration problem: start-up stops with this one-line message and exit code 1. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}
