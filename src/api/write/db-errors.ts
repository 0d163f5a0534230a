import { ConflictError, HttpError } from '../../core/errors.ts';

interface DriverError {
  code?: unknown;
  errno?: unknown;
}

// SQLite (better-sqlite3) codes, PostgreSQL SQLSTATEs and MySQL/MariaDB error names.
const CONFLICTS = new Set([
  'SQLITE_CONSTRAINT_UNIQUE',
  'SQLITE_CONSTRAINT_PRIMARYKEY',
  'SQLITE_CONSTRAINT_FOREIGNKEY',
  '23505',
  '23503',
  'ER_DUP_ENTRY',
  'ER_NO_REFERENCED_ROW',
  'ER_NO_REFERENCED_ROW_2',
  'ER_ROW_IS_REFERENCED',
  'ER_ROW_IS_REFERENCED_2',
]);
const INVALID = new Set([
  'SQLITE_CONSTRAINT_NOTNULL',
  'SQLITE_CONSTRAINT_CHECK',
  '23502',
  '23514',
  '22001',
  'ER_BAD_NULL_ERROR',
  'ER_CHECK_CONSTRAINT_VIOLATED',
  'ER_DATA_TOO_LONG',
  'ER_NO_DEFAULT_FOR_FIELD',
]);

/**
 * A database constraint violation as a client error (the driver's message, which can hold SQL or
 * values, is never shown); anything else is returned unchanged.
 */
export function constraintError(error: unknown): unknown {
  if (error instanceof HttpError || typeof error !== 'object' || error === null) return error;
  const code = String((error as DriverError).code ?? '');
  if (CONFLICTS.has(code)) {
    const reference = /FOREIGN|23503|REFERENCED/.test(code);
    return new ConflictError(
      reference
        ? 'The record refers to a record that does not exist, or is still referred to.'
        : 'A record with the same unique value already exists.',
    );
  }
  if (INVALID.has(code)) return new HttpError(422, 'A value is missing or does not fit its column.');
  return error;
}
