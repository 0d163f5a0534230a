// Dialect-independent: pure functions, no database; `npm test` runs it with the first database only.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { baseUsername, usernameCandidates } from '../../../src/auth/social/username.ts';

const VALID = /^[A-Za-z0-9 ]{3,30}$/;

describe('usernames from profiles', () => {
  it('cleans the first usable hint', () => {
    expect(baseUsername(['first.person'])).toBe('first person');
    expect(baseUsername(['  José_Álvarez!! '])).toBe('Jose Alvarez');
    expect(baseUsername(['!!', 'a', 'octocat'])).toBe('octocat');
    expect(baseUsername(['李小龙', '@@'])).toBe('user');
    expect(baseUsername([])).toBe('user');
    expect(baseUsername(['x'.repeat(40)])).toBe('x'.repeat(30));
  });

  it('always yields valid candidates, the base first', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 60 }), { maxLength: 4 }), (hints) => {
        const base = baseUsername(hints);
        expect(base).toMatch(VALID);
        const candidates = [...usernameCandidates(base)];
        expect(candidates[0]).toBe(base);
        expect(candidates.length).toBe(21);
        for (const candidate of candidates) expect(candidate).toMatch(VALID);
      }),
    );
  });
});
