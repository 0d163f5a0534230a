import { randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';

/**
 * Personal access token strings: `citadel_pat_` + 32 random bytes in base62 (43 characters) + a
 * 6-character base62 CRC32 checksum. The prefix lets secret scanners recognise a leaked token; the
 * checksum lets us refuse a mistyped or made-up token without a database lookup.
 */
export const TOKEN_PREFIX = 'citadel_pat_';
const BODY_LENGTH = 43;
const CHECKSUM_LENGTH = 6;
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const TOKEN_PATTERN = new RegExp(
  `^${TOKEN_PREFIX}[0-9A-Za-z]{${BODY_LENGTH}}[0-9A-Za-z]{${CHECKSUM_LENGTH}}$`,
);

function toBase62(value: bigint, width: number): string {
  let out = '';
  let n = value;
  while (n > 0n) {
    out = ALPHABET[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out.padStart(width, '0');
}

function checksum(prefixAndBody: string): string {
  return toBase62(BigInt(crc32(prefixAndBody)), CHECKSUM_LENGTH);
}

export function generateTokenString(): string {
  const body = toBase62(BigInt('0x' + randomBytes(32).toString('hex')), BODY_LENGTH);
  const head = TOKEN_PREFIX + body;
  return head + checksum(head);
}

/** True when the string has the token shape and its checksum matches. */
export function isWellFormedToken(token: string): boolean {
  if (!TOKEN_PATTERN.test(token)) return false;
  const head = token.slice(0, -CHECKSUM_LENGTH);
  return checksum(head) === token.slice(-CHECKSUM_LENGTH);
}
