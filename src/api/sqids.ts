import Sqids, { defaultOptions } from 'sqids';
import type { SecretBox } from '../core/crypto.ts';

const CANONICAL_MAX_LENGTH = 64;
const CACHE_SIZE = 50_000;

/**
 * Obfuscated ids: Sqids strings out, numbers in. Only the canonical encoding of exactly one
 * non-negative number is accepted, so every record has one public id and guessing variants fails.
 */
export class IdCodec {
  private readonly sqids: Sqids;
  // Encoding runs Sqids' blocklist check: memoised, since the same ids are sent again and again.
  // Cleared when full, so memory stays bounded whatever ids clients send.
  private readonly encoded = new Map<number, string>();
  private readonly decoded = new Map<string, number | null>();

  constructor(alphabet: string, minLength: number) {
    this.sqids = new Sqids({ alphabet, minLength });
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
    if (numbers.length !== 1 || !Number.isSafeInteger(numbers[0])) return null;
    return this.encode(numbers[0]!) === value ? numbers[0]! : null;
  }
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
 * `sqidsPerResource: false` (SQIDS_PER_RESOURCE=0, the migration path for ids issued before) every
 * space uses the one alphabet of earlier versions: SQIDS_ALPHABET as given, else
 * `deploymentAlphabet`.
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
