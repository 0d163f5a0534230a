import { randomInt } from 'node:crypto';

/** The rules of registration: 3 to 30 letters, digits and spaces. */
export const USERNAME_MIN = 3;
export const USERNAME_MAX = 30;

/**
 * A valid username from profile hints: the first hint that keeps at least 3 letters or digits once
 * everything else becomes a space (accents are folded: "José" -> "Jose"), else "user".
 */
export function baseUsername(hints: readonly string[]): string {
  for (const hint of hints) {
    const cleaned = hint
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .replace(/[^A-Za-z0-9]+/g, ' ')
      .trim()
      .replace(/ {2,}/g, ' ')
      .slice(0, USERNAME_MAX)
      .trim();
    if (cleaned.replace(/ /g, '').length >= USERNAME_MIN) return cleaned;
  }
  return 'user';
}

/**
 * Candidate usernames in order: the base, then the base with a short number, then with a longer
 * random number (so a popular name costs a few lookups, not one per existing "name N").
 */
export function* usernameCandidates(base: string): Generator<string> {
  yield base;
  for (let attempt = 0; attempt < 20; attempt += 1) {
    const digits = attempt < 10 ? 4 : 8;
    const suffix = String(randomInt(10 ** (digits - 1), 10 ** digits));
    yield `${base.slice(0, USERNAME_MAX - suffix.length).trimEnd()}${suffix}`;
  }
}
