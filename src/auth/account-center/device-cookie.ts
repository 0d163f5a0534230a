import { randomToken, safeEqual, type RequestContext } from '../../plugin-api.ts';

/**
 * The device cookie: a browser is a known device of an account when it
 * carries this cookie with an entry for that account, whatever its User-Agent says.
 *
 * Value: `v1.<browser id>.<entry>.<entry>…`, each entry `<day>_<tag>`: the day (base 36, days since
 * 1970) the account last signed in on this browser, and a keyed tag, HMAC(server secret, browser
 * id + user id + day) cut to 128 bits. The cookie holds no secret and names no account to anyone
 * without the server's key; one browser carries entries for several accounts. A tag that does not
 * verify (tampered, another server's, another account's) is as good as no entry.
 */
export const DEVICE_COOKIE = 'citadel_device';
/** The cookie lives a year; an entry counts while its day is within `NEW_DEVICE_DAYS` of today. */
export const DEVICE_COOKIE_MAX_AGE = 365 * 24 * 60 * 60;
/** Accounts remembered per browser: the ones signed in most recently stay. */
export const DEVICE_COOKIE_MAX_ACCOUNTS = 10;

const VERSION = 'v1';
const PURPOSE = 'device-cookie';
const BROWSER_ID = /^[A-Za-z0-9_-]{22}$/;
const ENTRY = /^([0-9a-z]{1,6})_([0-9a-f]{32})$/;
const DAY_MS = 86_400_000;
/** Longer than any honest cookie: 10 entries of at most 39 characters, plus the browser id. */
const MAX_LENGTH = 512;

interface DeviceCookie {
  browserId: string;
  entries: { day: number; tag: string }[];
}

function parse(value: string | undefined): DeviceCookie | null {
  if (!value || value.length > MAX_LENGTH) return null;
  const [version, browserId, ...rest] = value.split('.');
  if (version !== VERSION || !browserId || !BROWSER_ID.test(browserId)) return null;
  const entries: DeviceCookie['entries'] = [];
  for (const part of rest) {
    const match = ENTRY.exec(part);
    if (match) entries.push({ day: parseInt(match[1]!, 36), tag: match[2]! });
  }
  return { browserId, entries };
}

function tagFor(request: RequestContext, browserId: string, userId: number, day: number): string {
  return request.services.secrets.hmac(PURPOSE, `${browserId}.${userId}.${day}`).slice(0, 32);
}

function today(request: RequestContext): number {
  return Math.floor(request.services.clock.now().getTime() / DAY_MS);
}

/** The entry of this browser's cookie that belongs to `userId`, if one verifies. */
function entryOf(request: RequestContext, cookie: DeviceCookie, userId: number) {
  return cookie.entries.find((entry) =>
    safeEqual(entry.tag, tagFor(request, cookie.browserId, userId, entry.day)),
  );
}

/**
 * Whether this browser signed in to `userId` within the last `days` days: its device cookie has a
 * verified entry for the account, no older than that. A missing, malformed or tampered cookie, or
 * one with entries for other accounts only, is a new device.
 */
export function isKnownDevice(request: RequestContext, userId: number, days: number): boolean {
  const cookie = parse(request.cookies[DEVICE_COOKIE]);
  if (!cookie) return false;
  const entry = entryOf(request, cookie, userId);
  if (!entry) return false;
  const age = today(request) - entry.day;
  // A day in the future is not ours to have written (beyond a clock step across midnight).
  return age <= days && age >= -1;
}

/**
 * At sign-in: this browser now knows `userId` as of today. The browser id stays when the cookie
 * has a well-formed one; this account's old entry is replaced; other accounts' entries are kept
 * (they cannot be checked without their user id), the oldest dropped beyond the limit.
 */
export function rememberDevice(
  request: RequestContext,
  setCookie: (name: string, value: string, maxAge: number) => void,
  userId: number,
): void {
  const cookie = parse(request.cookies[DEVICE_COOKIE]) ?? { browserId: randomToken(16), entries: [] };
  const mine = entryOf(request, cookie, userId);
  const others = cookie.entries.filter((entry) => entry !== mine);
  const day = today(request);
  const entries = [
    ...others.slice(-(DEVICE_COOKIE_MAX_ACCOUNTS - 1)),
    { day, tag: tagFor(request, cookie.browserId, userId, day) },
  ];
  const value = [VERSION, cookie.browserId, ...entries.map((e) => `${e.day.toString(36)}_${e.tag}`)].join(
    '.',
  );
  setCookie(DEVICE_COOKIE, value, DEVICE_COOKIE_MAX_AGE);
}
