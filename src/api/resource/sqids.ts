import Sqids, { defaultOptions } from 'sqids';
import type { SecretBox } from '../../core/crypto.ts';

const CANONICAL_MAX_LENGTH = 64;
/**
 * The largest number an id decodes to. Obfuscated fields are `integer` columns (src/api/resource/define.ts),
 * 32-bit on PostgreSQL and MySQL: a larger number is no record's id, and PostgreSQL refuses to
 * compare it with one (an error, not an empty result).
 */
export const MAX_OBFUSCATED_ID = 2 ** 31 - 1;
const CACHE_SIZE = 50_000;

/**
 * Obfuscated ids: Sqids strings out, numbers in. Only the canonical encoding of exactly one
 * non-negative number up to MAX_OBFUSCATED_ID is accepted, so every record has one public id and guessing variants fails.
 */
export class IdCodec {
  private readonly sqids: Sqids;
  // Encoding runs Sqids' blocklist check: memoised, since the same ids are sent again and again.
  // Cleared when full, so memory stays bounded whatever ids clients send.
  private readonly encoded = new Map<number, string>();
  private readonly decoded = new Map<string, number | null>();

  constructor(alphabet: string, minLength: number) {
    this.sqids = withFastBlocklist(new Sqids({ alphabet, minLength }));
  }

  encode(value: number | bigint | string): string {
    const number = Number(value);
    let id = this.encoded.get(number);
    if (id === undefined) {
      id = this.sqids.encode([number]);
      if (this.encoded.size >= CACHE_SIZE) this.encoded.clear();
      this.encoded.set(number, id);
    }
    return id;
  }

  /** The number, or null for anything that is not a canonical id. */
  decode(value: unknown): number | null {
    if (typeof value !== 'string' || value.length === 0 || value.length > CANONICAL_MAX_LENGTH) return null;
    const known = this.decoded.get(value);
    if (known !== undefined) return known;
    const result = this.decodeUncached(value);
    if (this.decoded.size >= CACHE_SIZE) this.decoded.clear();
    this.decoded.set(value, result);
    return result;
  }

  private decodeUncached(value: string): number | null {
    let numbers: number[];
    try {
      numbers = this.sqids.decode(value);
    } catch {
      return null;
    }
    if (numbers.length !== 1 || !Number.isSafeInteger(numbers[0]) || numbers[0]! > MAX_OBFUSCATED_ID)
      return null;
    return this.encode(numbers[0]!) === value ? numbers[0]! : null;
  }
}

/** What `withFastBlocklist` reaches inside a Sqids instance (sqids 0.3: private in its types). */
interface SqidsInternals {
  blocklist?: unknown;
  isBlockedId?: (id: string) => boolean;
}

/**
 * Sqids' blocklist check, precompiled. Sqids tests every generated id against each word of its
 * ~560-word list, with a regular expression and a substring search per word: most of the time of
 * encoding an id (a bulk create of 1,000 rows spent a third of its CPU there). This gives the same
 * answer (a property test compares it with Sqids' own method) with a few set lookups:
 * - an id of at most 3 characters is blocked when it is a word;
 * - a longer id, by a word of 4 or more characters no longer than it: one with a digit when it
 *   starts or ends the id, one without anywhere in it (words of 3 characters block only equal ids).
 */
export class BlocklistCheck {
  private readonly words: ReadonlySet<string>;
  /** Words of 4+ characters with a digit, by length. */
  private readonly atEnds = new Map<number, Set<string>>();
  /** Words of 4+ characters without a digit, by length. */
  private readonly inside = new Map<number, Set<string>>();

  constructor(words: Iterable<string>) {
    this.words = new Set(words);
    for (const word of this.words) {
      if (word.length <= 3) continue;
      const byLength = /\d/.test(word) ? this.atEnds : this.inside;
      let set = byLength.get(word.length);
      if (!set) byLength.set(word.length, (set = new Set()));
      set.add(word);
    }
  }

  /** Whether Sqids would reject `id` (its words are lower case; so is the id when compared). */
  isBlocked(id: string): boolean {
    const lower = id.toLowerCase();
    if (lower.length <= 3) return this.words.has(lower);
    for (const [length, words] of this.atEnds)
      if (length <= lower.length && (words.has(lower.slice(0, length)) || words.has(lower.slice(-length))))
        return true;
    for (const [length, words] of this.inside)
      for (let start = 0; start + length <= lower.length; start++)
        if (words.has(lower.slice(start, start + length))) return true;
    return false;
  }
}

/**
 * `sqids` with its blocklist check replaced by `BlocklistCheck` over the same (alphabet-filtered)
 * words. Left as it is if the package's internals are not what this expects.
 */
export function withFastBlocklist(sqids: Sqids): Sqids {
  const internals = sqids as unknown as SqidsInternals;
  if (!(internals.blocklist instanceof Set) || typeof internals.isBlockedId !== 'function') return sqids;
  const check = new BlocklistCheck(internals.blocklist as Set<string>);
  internals.isBlockedId = (id) => check.isBlocked(id);
  return sqids;
}

/**
 * One codec per id space. A space is the table the ids belong to: a resource's primary key and
 * every foreign key pointing at that table share it; other spaces have other alphabets, so an id of
 * one resource is not a valid id of another, and knowing raw ids of one table (a user knows their
 * own user id) reveals nothing about the ids of the others.
 */
export class IdCodecs {
  private readonly bySpace = new Map<string, IdCodec>();

  constructor(
    private readonly alphabetFor: (space: string) => string,
    private readonly minLength: number,
  ) {}

  of(space: string): IdCodec {
    let codec = this.bySpace.get(space);
    if (!codec) {
      codec = new IdCodec(this.alphabetFor(space), this.minLength);
      this.bySpace.set(space, codec);
    }
    return codec;
  }
}

/**
 * The codecs of a deployment. Each space gets the base alphabet (SQIDS_ALPHABET, else the default
 * one) shuffled by a key derived from the session secret and the space's name. With
 * `sqidsPerResource: false` (SQIDS_PER_RESOURCE=0) every space uses one alphabet: SQIDS_ALPHABET as
 * given, else `deploymentAlphabet`.
 */
export function deploymentCodecs(
  secrets: SecretBox,
  settings: { sqidsAlphabet?: string; sqidsMinLength: number; sqidsPerResource?: boolean },
): IdCodecs {
  const shared = settings.sqidsAlphabet ?? deploymentAlphabet(secrets);
  const alphabetFor =
    settings.sqidsPerResource === false
      ? () => shared
      : (space: string) =>
          shuffled(settings.sqidsAlphabet ?? defaultOptions.alphabet, secrets, `sqids-alphabet:${space}`);
  return new IdCodecs(alphabetFor, settings.sqidsMinLength);
}

/**
 * Without SQIDS_ALPHABET, the default alphabet shuffled by a key derived from the session secret:
 * every process of one deployment agrees, and ids differ between deployments.
 */
export function deploymentAlphabet(secrets: SecretBox): string {
  return shuffled(defaultOptions.alphabet, secrets, 'sqids-alphabet');
}

/** The alphabet of one id space: the base alphabet shuffled by the secret and the space's name. */
export function spaceAlphabet(
  secrets: SecretBox,
  space: string,
  base: string = defaultOptions.alphabet,
): string {
  return shuffled(base, secrets, `sqids-alphabet:${space}`);
}

/** `alphabet` shuffled by a keyed stream (HMAC of the session secret under `label`). */
function shuffled(alphabet: string, secrets: SecretBox, label: string): string {
  const letters = [...alphabet];
  let stream = Buffer.alloc(0);
  let counter = 0;
  const nextByte = (() => {
    let position = 0;
    return () => {
      if (position >= stream.length) {
        stream = Buffer.from(secrets.hmac(label, String(counter++)), 'hex');
        position = 0;
      }
      return stream[position++]!;
    };
  })();
  // Fisher-Yates with rejection sampling (no modulo bias).
  for (let i = letters.length - 1; i > 0; i--) {
    const bound = i + 1;
    const limit = 256 - (256 % bound);
    let byte = nextByte();
    while (byte >= limit) byte = nextByte();
    const j = byte % bound;
    [letters[i], letters[j]] = [letters[j]!, letters[i]!];
  }
  return letters.join('');
}
