/**
 * Row ids from requests. A table's `id` is 32-bit on PostgreSQL (serial) and MySQL (INTEGER), and
 * a larger value there is an error of the database, not a missing row: an id outside this range
 * is an unknown id on every dialect (404 in a path, 422 in a body), decided before any query.
 */
export const MAX_ROW_ID = 2 ** 31 - 1;

/** A positive integer a row id can be. */
export function isRowId(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) >= 1 && (value as number) <= MAX_ROW_ID;
}

/** A row id from URL text (decimal digits, no sign or leading zero), or null when no row has it. */
export function rowIdFromText(text: unknown): number | null {
  if (typeof text !== 'string' || !/^[1-9][0-9]{0,9}$/.test(text)) return null;
  const id = Number(text);
  return id <= MAX_ROW_ID ? id : null;
}
