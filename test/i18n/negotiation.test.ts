// Dialect-independent: Accept-Language parsing and lookup are pure functions; `npm test` runs it with the first database only.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { lookupLanguage, parseAcceptLanguage } from '../../src/core/i18n/negotiate.ts';

const AVAILABLE = new Map([
  ['en', 'en'],
  ['de', 'de'],
  ['fr', 'fr'],
  ['ar', 'ar'],
  ['pt-br', 'pt-BR'],
]);
const lookup = (header: string | undefined, fallback = 'en') => lookupLanguage(header, AVAILABLE, fallback);

describe('Accept-Language lookup (RFC 4647 §3.4)', () => {
  it('takes the first available range by weight', () => {
    expect(lookup('fr')).toBe('fr');
    expect(lookup('it, de;q=0.8, fr;q=0.9')).toBe('fr');
    expect(lookup('de;q=0.5, ar')).toBe('ar');
    // Equal weights keep the header's order.
    expect(lookup('ar;q=0.7, de;q=0.7')).toBe('ar');
  });

  it('ignores case and answers with the available spelling', () => {
    expect(lookup('DE')).toBe('de');
    expect(lookup('PT-br')).toBe('pt-BR');
  });

  it('falls back from a region (and a trailing singleton) to the language', () => {
    expect(lookup('de-CH')).toBe('de');
    expect(lookup('de-CH-1996')).toBe('de');
    expect(lookup('de-x-private')).toBe('de');
    expect(lookup('pt-BR-x-y')).toBe('pt-BR');
    expect(lookup('pt-PT')).toBeUndefined();
  });

  it('q=0 excludes a language, even one a region would fall back to', () => {
    expect(lookup('de;q=0, fr;q=0.1')).toBe('fr');
    expect(lookup('de-CH, de;q=0')).toBeUndefined();
    expect(lookup('de;q=0')).toBeUndefined();
  });

  it('* stands for the default language', () => {
    expect(lookup('it, *;q=0.5', 'fr')).toBe('fr');
    expect(lookup('*')).toBe('en');
    expect(lookup('*, en;q=0')).toBeUndefined();
  });

  it('skips what it cannot read and answers nothing for an empty header', () => {
    expect(lookup(undefined)).toBeUndefined();
    expect(lookup('')).toBeUndefined();
    expect(lookup('de;q=2, fr')).toBe('fr');
    expect(lookup('de;q=abc, ar')).toBe('ar');
    expect(lookup('"de", fr')).toBe('fr');
    expect(lookup('toolongsubtag-de, ar')).toBe('ar');
  });

  it('never throws, and answers an available language or nothing, for any header', () => {
    const available = new Set(AVAILABLE.values());
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (header) => {
        const found = lookup(header);
        return found === undefined || available.has(found);
      }),
      { numRuns: 2000 },
    );
  });

  const tag = fc.constantFrom(
    'en',
    'de',
    'fr',
    'ar',
    'it',
    'de-CH',
    'FR-ca',
    'pt-BR',
    'pt',
    'zh-Hant-TW',
    '*',
  );
  const weight = fc.oneof(
    fc.constantFrom(0, 1, 0.5),
    fc.integer({ min: 0, max: 1000 }).map((n) => n / 1000),
  );
  const entries = fc.array(fc.tuple(tag, weight, fc.boolean()), { maxLength: 8 });
  const headerOf = (list: [string, number, boolean][]) =>
    list.map(([range, q, explicit]) => (explicit || q !== 1 ? `${range};q=${q}` : range)).join(' , ');

  it('agrees with a direct reading of the rules for any list of ranges', () => {
    fc.assert(
      fc.property(entries, (list) => {
        const header = headerOf(list);
        // The model: by weight (stable), skip q=0; `*` is the default unless excluded; a range
        // is shortened subtag by subtag and stops at an excluded tag.
        const excluded = new Set(list.filter(([, q]) => q === 0).map(([range]) => range.toLowerCase()));
        const sorted = list
          .map((entry, index) => ({ entry, index }))
          .sort((a, b) => b.entry[1] - a.entry[1] || a.index - b.index);
        let expected: string | undefined;
        for (const {
          entry: [range, q],
        } of sorted) {
          if (q === 0) continue;
          if (range === '*') {
            if (!excluded.has('en')) {
              expected = 'en';
              break;
            }
            continue;
          }
          const parts = range.toLowerCase().split('-');
          let found: string | undefined;
          while (parts.length > 0) {
            const candidate = parts.join('-');
            if (excluded.has(candidate)) break;
            if (AVAILABLE.has(candidate)) {
              found = AVAILABLE.get(candidate);
              break;
            }
            parts.pop();
          }
          if (found) {
            expected = found;
            break;
          }
        }
        expect(lookup(header)).toBe(expected);
      }),
      { numRuns: 1000 },
    );
  });

  it('reads at most 32 ranges of a long header', () => {
    const header = `${Array.from({ length: 40 }, (_, i) => `x${i}`).join(',')},de`;
    expect(parseAcceptLanguage(header).length).toBeLessThanOrEqual(32);
    expect(lookup(header)).toBeUndefined();
  });
});
