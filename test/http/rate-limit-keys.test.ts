// Dialect-independent: pure functions, no database; `npm test` runs it with the first database only.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { storedLimitKey } from '../../src/http/limits/rate-limit.ts';

describe('stored rate-limit keys', () => {
  it('short keys are kept as they are', () => {
    expect(storedLimitKey('login:pair:127.0.0.1:alice')).toBe('login:pair:127.0.0.1:alice');
  });

  it('every key fits the 191-character column and distinct keys stay distinct', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 600 }), fc.string({ maxLength: 600 }), (a, b) => {
        expect(storedLimitKey(a).length).toBeLessThanOrEqual(191);
        if (a !== b) expect(storedLimitKey(a)).not.toBe(storedLimitKey(b));
      }),
    );
    const head = 'login:pair:127.0.0.1:' + 'a'.repeat(300);
    expect(storedLimitKey(head + 'x')).not.toBe(storedLimitKey(head + 'y'));
  });
});
