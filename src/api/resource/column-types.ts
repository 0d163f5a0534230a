import { sql, type AliasedRawBuilder } from 'kysely';
import type { Dialect } from '../../db/url.ts';
import type { ColumnConfig, ColumnType } from './types.ts';

/**
 * Column types between JSON and the three databases. Each type has one JSON form on every dialect:
 * bigint and decimal travel as strings (a JSON number cannot hold them
 * exactly), booleans as true/false (stored 0/1), dates as `YYYY-MM-DD`, json as any JSON value
 * (stored as its text).
 */

const BIGINT = /^-?(0|[1-9][0-9]{0,18})$/;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const DECIMAL = /^-?[0-9]+(\.[0-9]+)?$/;
const DATE = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/;
const DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;
/** INTEGER on PostgreSQL and MySQL is 32-bit: larger values belong in a bigint column. */
const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

/** Default DECIMAL(precision, scale) of a decimal column (declare the column with the same). */
export const DECIMAL_DEFAULTS = { precision: 30, scale: 10 } as const;

/** `-001.2300` → `-1.23`, `-0.0` → `0`: the one spelling of a decimal the API sends. */
export function canonicalDecimal(text: string): string {
  const negative = text.startsWith('-');
  const [whole = '0', fraction = ''] = (negative ? text.slice(1) : text).split('.');
  const integer = whole.replace(/^0+(?=.)/, '');
  const decimals = fraction.replace(/0+$/, '');
  const body = decimals ? `${integer}.${decimals}` : integer;
  return negative && body !== '0' ? `-${body}` : body;
}

function validDate(text: string): boolean {
  const match = DATE.exec(text);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (year < 1 || month < 1 || month > 12 || day < 1) return false;
  // Day 0 of the next month is the last day of this one (UTC, so no time zone shifts it).
  return day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** Why `value` cannot be stored in a column of this type, or null when it can (null is checked elsewhere). */
export function columnValueProblem(column: ColumnConfig, value: unknown): string | null {
  switch (column.type) {
    case 'integer':
      return Number.isInteger(value) && (value as number) >= INT32_MIN && (value as number) <= INT32_MAX
        ? null
        : `must be an integer from ${INT32_MIN} to ${INT32_MAX}`;
    case 'bigint': {
      if (typeof value !== 'string' || !BIGINT.test(value))
        return 'must be a string of digits (a 64-bit integer)';
      const big = BigInt(value);
      return big < INT64_MIN || big > INT64_MAX ? 'is outside the 64-bit integer range' : null;
    }
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? null : 'must be a number';
    case 'decimal': {
      if (typeof value !== 'string' || !DECIMAL.test(value))
        return 'must be a decimal number written as a string, such as "12.50"';
      const { precision, scale } = { ...DECIMAL_DEFAULTS, ...column };
      const [whole, fraction = ''] = canonicalDecimal(value).replace('-', '').split('.');
      if (fraction.length > scale) return `has more than ${scale} decimal places`;
      if ((whole === '0' ? 0 : whole!.length) > precision - scale)
        return `has more than ${precision - scale} digits before the point`;
      return null;
    }
    case 'boolean':
      return typeof value === 'boolean' ? null : 'must be true or false';
    case 'string':
    case 'text':
      return typeof value === 'string' ? null : 'must be a string';
    case 'date':
      return typeof value === 'string' && validDate(value) ? null : 'must be a date (YYYY-MM-DD)';
    case 'datetime':
      return typeof value === 'string' && DATETIME.test(value) && !Number.isNaN(Date.parse(value))
        ? null
        : 'must be an ISO 8601 date-time, such as 2026-01-31T12:00:00Z';
    case 'json':
      return null;
  }
}

/**
 * A key (an id, a foreign key) as its column stores it, or null when no row can hold it: an
 * integer outside the column's range is an unknown id, never a value sent to the database (where
 * PostgreSQL and MySQL would refuse it with an error). `text` true: the value is URL text.
 */
export function keyValue(type: ColumnType | undefined, value: unknown, text = false): number | string | null {
  if (type === 'integer') {
    const number = text
      ? typeof value === 'string' && /^(0|-?[1-9][0-9]{0,9})$/.test(value)
        ? Number(value)
        : NaN
      : value;
    return columnValueProblem({ type }, number) === null ? (number as number) : null;
  }
  if (type === 'bigint') {
    const spelled = typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : value;
    return columnValueProblem({ type }, spelled) === null ? (spelled as string) : null;
  }
  if (type === 'number' && text) {
    const number = typeof value === 'string' && value !== '' ? Number(value) : NaN;
    return Number.isFinite(number) ? number : null;
  }
  if (type !== undefined && type !== 'string' && type !== 'text' && type !== 'json' && type !== 'boolean') {
    if (typeof value !== 'string' && typeof value !== 'number') return null;
    return columnValueProblem({ type }, value) === null ? value : null;
  }
  return typeof value === 'string' || typeof value === 'number' ? value : null;
}

/**
 * Whether a well-formed integer is outside an integer column's range (an unknown id in a filter:
 * 422 rather than the 400 of a malformed value).
 */
export function integerOutOfRange(type: ColumnType, value: unknown): boolean {
  if (type !== 'integer' && type !== 'bigint') return false;
  const spelled = String(value);
  return (
    /^-?[0-9]+$/.test(spelled) &&
    columnValueProblem({ type }, type === 'integer' ? Number(spelled) : spelled) !== null
  );
}

/** A checked JSON value as the driver of `dialect` binds it. */
export function toStorage(type: ColumnType, value: unknown, dialect: Dialect): unknown {
  // JSON null is a value of a json column (stored as the text `null`), not a missing one.
  if (type === 'json' && value !== undefined) return JSON.stringify(value);
  if (value === null || value === undefined) return value;
  switch (type) {
    case 'boolean':
      // 0/1 works for an integer column everywhere and for a PostgreSQL boolean column too.
      return value ? 1 : 0;
    case 'bigint':
      // better-sqlite3 binds a BigInt as a 64-bit integer; the others parse the string themselves.
      return dialect === 'sqlite' ? BigInt(value as string) : value;
    case 'decimal':
      return canonicalDecimal(value as string);
    case 'datetime':
      // One spelling in storage (UTC, milliseconds), so that text comparison orders by time.
      return new Date(value as string).toISOString();
    default:
      return value;
  }
}

/** Types read back as text, so that no driver rounds them (bigint, decimal) or shifts them (date). */
const READ_AS_TEXT: ReadonlySet<ColumnType> = new Set(['bigint', 'decimal', 'date', 'json']);

/**
 * The select expression of a column: the column itself, or its text for the types above (aliased
 * to the column's name). `table` null gives an unqualified reference.
 */
export function readExpression(
  dialect: Dialect,
  table: string | null,
  column: string,
  type: ColumnType | undefined,
): AliasedRawBuilder<unknown, string> {
  const ref = sql.ref(table === null ? column : `${table}.${column}`);
  if (type === undefined || !READ_AS_TEXT.has(type))
    return ref as unknown as AliasedRawBuilder<unknown, string>;
  const text = dialect === 'mysql' ? sql`cast(${ref} as char)` : sql`cast(${ref} as text)`;
  return text.as(column);
}

type Converter = (value: unknown) => unknown;

/** Stored value → JSON value, per type (null stays null). */
export const FROM_STORAGE: Record<ColumnType, Converter> = {
  integer: (value) => (typeof value === 'number' ? value : Number(value)),
  // pg returns a REAL/DOUBLE as a number, a NUMERIC column declared as number as a string.
  number: (value) => (typeof value === 'number' ? value : Number(value)),
  bigint: (value) => String(value),
  decimal: (value) => canonicalDecimal(String(value)),
  boolean: (value) => value === true || value === 1 || value === '1' || value === 't' || value === 1n,
  string: (value) => value,
  text: (value) => value,
  date: (value) => String(value).slice(0, 10),
  datetime: (value) => (value instanceof Date ? value.toISOString() : value),
  json: (value) => (typeof value === 'string' ? (JSON.parse(value) as unknown) : value),
};
