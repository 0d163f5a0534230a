import { isValidAbility, rowIdFromText, type Text } from '../../plugin-api.ts';
import { tokensMessages } from './messages/index.ts';

/** A token may carry this many abilities at most: enough for any real scope list, bounded storage. */
export const MAX_ABILITIES = 50;

/**
 * `abilities`: a JSON array of strings, or (HTML forms) one string of abilities separated by commas
 * or spaces, or repeated fields. Absent means `["*"]`, as the spec says. Duplicates are dropped.
 * A problem goes into `errors.abilities` (and the result is undefined).
 */
export function parseAbilities(
  value: string | string[] | undefined,
  errors: Record<string, Text>,
): string[] | undefined {
  if (value === undefined) return ['*'];
  const items = typeof value === 'string' ? value.split(/[\s,]+/).filter(Boolean) : value;
  if (items.length === 0) {
    errors.abilities = tokensMessages.text('error.noAbility');
    return undefined;
  }
  if (items.length > MAX_ABILITIES) {
    errors.abilities = tokensMessages.text('error.tooManyAbilities', { max: MAX_ABILITIES });
    return undefined;
  }
  if (!items.every(isValidAbility)) {
    errors.abilities = tokensMessages.text('error.abilityFormat');
    return undefined;
  }
  return [...new Set(items)];
}

// Four-digit years only: the stored ISO string keeps its fixed width, so text comparison stays right.
const ISO_8601 =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|([+-])(\d{2}):?(\d{2}))?)?$/i;

/**
 * Parse an ISO 8601 date or date-time into a Date; null when malformed or not a real calendar date
 * (JavaScript would silently roll 2026-02-30 over to March). A time without a zone is UTC, which is
 * what the HTML form says next to its datetime field.
 */
export function parseIsoTimestamp(text: string): Date | null {
  const match = ISO_8601.exec(text.trim());
  if (!match) return null;
  const [, y, mo, d, h = '0', mi = '0', s = '0', fraction = '', , sign, oh = '0', om = '0'] = match;
  const [year, month, day, hour, minute, second] = [y, mo, d, h, mi, s].map(Number) as number[];
  if (hour! > 23 || minute! > 59 || second! > 59 || Number(oh) > 23 || Number(om) > 59) return null;
  const calendar = new Date(Date.UTC(year!, month! - 1, day!));
  if (
    calendar.getUTCFullYear() !== year ||
    calendar.getUTCMonth() !== month! - 1 ||
    calendar.getUTCDate() !== day
  ) {
    return null;
  }
  const offsetMinutes = sign ? (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om)) : 0;
  const millis = Number(fraction.padEnd(3, '0').slice(0, 3));
  const date = new Date(
    Date.UTC(year!, month! - 1, day!, hour, minute, second, millis) - offsetMinutes * 60_000,
  );
  const utcYear = date.getUTCFullYear();
  return utcYear >= 1000 && utcYear <= 9999 ? date : null;
}

/** `expires_at`: optional; when given, a valid ISO 8601 timestamp strictly after `now`. */
export function parseExpiresAt(
  text: string | undefined,
  now: Date,
  errors: Record<string, Text>,
): string | null | undefined {
  if (text === undefined) return null;
  const date = parseIsoTimestamp(text);
  if (!date) {
    errors.expires_at = tokensMessages.text('error.expiryFormat');
    return undefined;
  }
  if (date.getTime() <= now.getTime()) {
    errors.expires_at = tokensMessages.text('error.expiryPast');
    return undefined;
  }
  return date.toISOString();
}

/** Path ids: a positive integer that fits the id column; anything else is simply not found. */
export function parseTokenId(value: unknown): number | null {
  return rowIdFromText(value);
}
