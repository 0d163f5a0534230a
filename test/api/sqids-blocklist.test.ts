// Dialect-independent: pure functions, no database; `npm test` runs it with the first database only.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import Sqids, { defaultOptions } from 'sqids';
import { BlocklistCheck, IdCodec, withFastBlocklist } from '../../src/api/resource/sqids.ts';

/**
 * The precompiled blocklist check must answer exactly as Sqids' own: an id that changed would
 * break every link and stored reference to a record. Compared here on random strings, on strings
 * built around blocked words, and on whole encodings.
 */
const alphabet = [...defaultOptions.alphabet].reverse().join('');
const plain = new Sqids({ alphabet, minLength: 0 });
const internals = plain as unknown as { blocklist: Set<string>; isBlockedId: (id: string) => boolean };
const original = (id: string) => internals.isBlockedId(id);
const words = [...internals.blocklist];
const check = new BlocklistCheck(words);

const letters = fc.constantFrom(...alphabet, ...'AEIOUaeiou0134');
const randomId = fc.array(letters, { minLength: 1, maxLength: 14 }).map((chars) => chars.join(''));
// A blocked word with random characters around it, in random case: where the rules differ
// (inside, at the start or the end, digits, 3 characters or fewer).
const aroundWord = fc
  .tuple(
    fc.array(letters, { maxLength: 5 }),
    fc.constantFrom(...words),
    fc.array(letters, { maxLength: 5 }),
    fc.boolean(),
  )
  .map(([before, word, after, upper]) => {
    const id = before.join('') + word + after.join('');
    return upper ? id.toUpperCase() : id;
  });

describe('the precompiled Sqids blocklist check', () => {
  it('has words to check (the test compares something)', () => {
    expect(words.length).toBeGreaterThan(400);
    expect(words.some((word) => word.length <= 3)).toBe(true);
    expect(words.some((word) => /\d/.test(word))).toBe(true);
  });

  it('answers as Sqids does, on random ids and on ids around blocked words', () => {
    let blocked = 0;
    fc.assert(
      fc.property(fc.oneof(randomId, aroundWord), (id) => {
        const expected = original(id);
        if (expected) blocked++;
        expect(check.isBlocked(id)).toBe(expected);
      }),
      { numRuns: 20_000 },
    );
    // Both answers were exercised.
    expect(blocked).toBeGreaterThan(1000);
  });

  it('encodes every number as the unpatched Sqids does', () => {
    const fast = withFastBlocklist(new Sqids({ alphabet, minLength: 0 }));
    const padded = new Sqids({ alphabet, minLength: 8 });
    const fastPadded = withFastBlocklist(new Sqids({ alphabet, minLength: 8 }));
    fc.assert(
      fc.property(fc.oneof(fc.nat(100_000), fc.maxSafeNat()), (n) => {
        expect(fast.encode([n])).toBe(plain.encode([n]));
        expect(fastPadded.encode([n])).toBe(padded.encode([n]));
      }),
      { numRuns: 20_000 },
    );
  });

  it('the codec still round-trips its ids', () => {
    const codec = new IdCodec(alphabet, 6);
    for (let n = 0; n < 5000; n++) expect(codec.decode(codec.encode(n))).toBe(n);
  });
});
