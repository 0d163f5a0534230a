// Dialect-independent: pure functions, no database; `npm test` runs it with the first database only.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { generateTokenString, isWellFormedToken, TOKEN_PREFIX } from '../../../src/auth/core/token-format.ts';
import { coversAbilities, hasAbility, isValidAbility } from '../../../src/auth/core/abilities.ts';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

describe('token format', () => {
  it('is citadel_pat_ + 43 base62 characters + a 6-character checksum, and verifies', () => {
    for (let i = 0; i < 200; i++) {
      const token = generateTokenString();
      expect(token).toMatch(/^citadel_pat_[0-9A-Za-z]{49}$/);
      expect(isWellFormedToken(token)).toBe(true);
    }
  });

  it('tokens do not repeat', () => {
    const seen = new Set(Array.from({ length: 1000 }, generateTokenString));
    expect(seen.size).toBe(1000);
  });

  it('any single-character change is caught by the shape or the checksum', () => {
    const token = generateTokenString();
    fc.assert(
      fc.property(
        fc.integer({ min: TOKEN_PREFIX.length, max: token.length - 1 }),
        fc.constantFrom(...BASE62),
        (index, char) => {
          fc.pre(token[index] !== char);
          const changed = token.slice(0, index) + char + token.slice(index + 1);
          expect(isWellFormedToken(changed)).toBe(false);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('random strings are not well formed', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (s) => {
        expect(isWellFormedToken(s)).toBe(false);
      }),
    );
    fc.assert(
      fc.property(fc.stringMatching(/^citadel_pat_[0-9A-Za-z]{49}$/), (s) => {
        // A made-up token passes the checksum only by a 1 in 2^32 chance.
        expect(isWellFormedToken(s)).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  it('refuses the right characters with another prefix or length', () => {
    const token = generateTokenString();
    expect(isWellFormedToken(token.replace('citadel_pat_', 'citadel_pak_'))).toBe(false);
    expect(isWellFormedToken(token + '0')).toBe(false);
    expect(isWellFormedToken(token.slice(1))).toBe(false);
    expect(isWellFormedToken(` ${token}`)).toBe(false);
  });
});

const resource = fc.stringMatching(/^[a-z][a-z0-9_-]{0,10}$/);
const verb = fc.constantFrom('read', 'create', 'update', 'delete');

describe('abilities', () => {
  it('validates the three shapes', () => {
    for (const ok of ['*', 'posts:*', 'posts:read', 'tokens:create', 'blog_posts:delete', 'a-b:update'])
      expect(isValidAbility(ok), ok).toBe(true);
    for (const bad of [
      '',
      'posts',
      'posts:',
      ':read',
      'posts:write',
      'Posts:read',
      '*:read',
      'posts:*:read',
      ' posts:read',
      '**',
    ])
      expect(isValidAbility(bad), bad).toBe(false);
  });

  it('* grants everything; resource:* grants every verb of that resource only', () => {
    fc.assert(
      fc.property(resource, resource, verb, (r, other, v) => {
        expect(hasAbility(['*'], `${r}:${v}`)).toBe(true);
        expect(hasAbility([`${r}:*`], `${r}:${v}`)).toBe(true);
        expect(hasAbility([`${r}:${v}`], `${r}:${v}`)).toBe(true);
        if (other !== r) {
          expect(hasAbility([`${other}:*`], `${r}:${v}`)).toBe(false);
          expect(hasAbility([`${other}:${v}`], `${r}:${v}`)).toBe(false);
        }
      }),
    );
  });

  it('a verb grants only itself', () => {
    fc.assert(
      fc.property(resource, verb, verb, (r, held, wanted) => {
        expect(hasAbility([`${r}:${held}`], `${r}:${wanted}`)).toBe(held === wanted);
      }),
    );
    expect(hasAbility([], 'posts:read')).toBe(false);
    // A resource whose name is a prefix of another is a different resource.
    expect(hasAbility(['post:*'], 'posts:read')).toBe(false);
  });

  it('a token can mint only abilities it holds itself', () => {
    expect(coversAbilities(['*'], ['*', 'posts:*', 'tokens:create'])).toBe(true);
    expect(coversAbilities(['posts:*'], ['posts:read', 'posts:*'])).toBe(true);
    expect(coversAbilities(['posts:*'], ['*'])).toBe(false);
    expect(coversAbilities(['posts:read'], ['posts:*'])).toBe(false);
    expect(coversAbilities(['posts:read', 'tokens:create'], ['comments:read'])).toBe(false);
    fc.assert(
      fc.property(fc.array(fc.tuple(resource, verb)), (pairs) => {
        const held = pairs.map(([r, v]) => `${r}:${v}`);
        expect(coversAbilities(held, held)).toBe(true);
        expect(coversAbilities(held, ['*'])).toBe(false);
      }),
    );
  });
});
