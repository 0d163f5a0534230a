/**
 * Errors that mean a dependency (the database, Redis) cannot be reached right now: the answer is
 * 503, not 500, and the pools recover by themselves when it returns (contract section 12).
 */
const CONNECTION_ERROR_CODES = new Set([
  // Sockets
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  // mysql2
  'PROTOCOL_CONNECTION_LOST',
  'ER_CON_COUNT_ERROR',
  // PostgreSQL SQLSTATE: connection exceptions (08…), shutting down or starting up (57P0…)
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
  '57P01',
  '57P02',
  '57P03',
]);

/** Messages of drivers that throw without a code when a connection ends or never comes. */
const CONNECTION_ERROR_MESSAGES =
  /^(Connection terminated( unexpectedly| due to connection timeout)?|Connection is closed\.|Reached the max retries per request limit|timeout exceeded when trying to connect)/;

export function isDependencyOutage(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  const { code, message, name } = error as { code?: unknown; message?: unknown; name?: unknown };
  if (typeof code === 'string' && CONNECTION_ERROR_CODES.has(code)) return true;
  if (name === 'MaxRetriesPerRequestError') return true;
  return typeof message === 'string' && CONNECTION_ERROR_MESSAGES.test(message);
}

export const OUTAGE_MESSAGE = 'The service is temporarily unavailable. Please try again shortly.';
