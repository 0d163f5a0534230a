import type { FastifyRequest } from 'fastify';
import { HttpError } from '../../core/errors.ts';

/**
 * Errors that mean "the database or Redis cannot be reached right now" (a restart, a failover, a
 * cut network), from pg, mysql2, better-sqlite3 and ioredis. The
 * client gets 503 with Retry-After, never a 500, and the next request tries again.
 */
const OUTAGE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'ER_CON_COUNT_ERROR',
  'SQLITE_BUSY',
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  '53300', // too_many_connections
]);
const OUTAGE_MESSAGES = [
  /^Connection terminated/,
  /Connection is closed/,
  /connect ECONNREFUSED/,
  /Client has encountered a connection error/,
  /timeout exceeded when trying to connect/,
  /Reached the max retries per request limit/,
  /Stream isn't writeable/,
  /Can't add new command when connection is in closed state/,
];

export function isOutageError(error: unknown): boolean {
  if (error instanceof HttpError || typeof error !== 'object' || error === null) return false;
  const { code, message, name } = error as { code?: unknown; message?: unknown; name?: unknown };
  if (typeof code === 'string' && (OUTAGE_CODES.has(code) || code.startsWith('08'))) return true;
  if (name === 'MaxRetriesPerRequestError') return true;
  return typeof message === 'string' && OUTAGE_MESSAGES.some((pattern) => pattern.test(message));
}

export const OUTAGE_RETRY_AFTER = 5;

export class ServiceUnavailableError extends HttpError {
  override name = 'ServiceUnavailableError';
  constructor() {
    super(503, 'The service is briefly unavailable. Please try again in a few seconds.', {
      headers: { 'retry-after': String(OUTAGE_RETRY_AFTER) },
    });
  }
}

/** A database or Redis outage is a 503 for the client (logged once as a warning, without a stack). */
export function outageAs503<E extends Error>(error: E, request: FastifyRequest): E | ServiceUnavailableError {
  if (!isOutageError(error)) return error;
  request.log.warn({ err: { message: error.message } }, 'database or Redis unavailable');
  return new ServiceUnavailableError();
}
