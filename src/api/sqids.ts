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
 * Without SQIDS_ALPHABET, the default alphabet shuffled by a key derived from the session secret:
 * every process of one deployment agrees, and ids differ between deployments.
 */
export function deploymentAlphabet(secrets: SecretBox): string {
  const letters = [...defaultOptions.alphabet];
  let stream = Buffer.alloc(0);
  let counter = 0;
  const nextByte = (() => {
    let position = 0;
    return () => {
      if (position >= stream.length) {
        stream = Buffer.from(secrets.hmac('sqids-alphabet', String(counter++)), 'hex');
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
