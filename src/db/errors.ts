/** Driver error fields the three dialects use: a code (SQLite, PostgreSQL SQLSTATE, MySQL name). */
interface DriverError {
  code?: unknown;
}

/**
 * A row refers to a row that does not exist (or no longer does): SQLite's
 * `SQLITE_CONSTRAINT_FOREIGNKEY`, PostgreSQL's 23503, MySQL/MariaDB's `ER_NO_REFERENCED_ROW(_2)`.
 * Written for a user, it means the user was deleted meanwhile: the caller is gone.
 */
export function isForeignKeyViolation(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = String((error as DriverError).code ?? '');
  return (
    code === 'SQLITE_CONSTRAINT_FOREIGNKEY' ||
    code === '23503' ||
    code === 'ER_NO_REFERENCED_ROW_2' ||
    code === 'ER_NO_REFERENCED_ROW'
  );
}
