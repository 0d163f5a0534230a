// Dialect-independent: catalogs, overrides and formatters are pure functions; `npm test` runs it with the first database only.
import { describe, expect, it } from 'vitest';
import { Type } from '@sinclair/typebox';
import { defineMessages, keyedText, written } from '../../src/core/i18n/catalog.ts';
import { Languages, LanguageSettingError } from '../../src/core/i18n/languages.ts';
import { coreMessages } from '../../src/core/i18n/messages/index.ts';
import type { EnglishCatalog } from '../../src/core/i18n/types.ts';
import { inputReader } from '../../src/auth/core/endpoint-input.ts';
import { ValidationError } from '../../src/core/errors.ts';

const en = {
  greeting: 'Hello',
  farewell: 'Goodbye',
  sessions: ({ count }: { count: number }, f) => f.plural(count, { one: '# session', other: '# sessions' }),
  since: ({ at }: { at: string }, f) => `since ${f.date(at, { dateStyle: 'long', timeZone: 'UTC' })}`,
} as const satisfies EnglishCatalog;
const demo = defineMessages('demo', en, {
  de: {
    greeting: 'Hallo',
    sessions: ({ count }, f) => f.plural(count, { one: '# Sitzung', other: '# Sitzungen' }),
  },
  ar: {
    sessions: ({ count }, f) =>
      f.plural(count, {
        zero: 'لا جلسات',
        one: 'جلسة واحدة',
        two: 'جلستان',
        few: '# جلسات',
        many: '# جلسة',
        other: '# جلسة',
      }),
  },
});

describe('languages', () => {
  it('write each message in the language, English where the language lacks it', () => {
    const languages = new Languages({ catalogs: [coreMessages, demo] });
    const de = demo.in(languages.get('de'));
    expect(de('greeting')).toBe('Hallo');
    expect(de('farewell')).toBe('Goodbye');
    expect(de('sessions', { count: 1 })).toBe('1 Sitzung');
    expect(de('sessions', { count: 1200 })).toBe('1.200 Sitzungen');
    expect(de('since', { at: '2026-03-01T10:00:00Z' })).toBe('since 1. März 2026');
    const ar = demo.in(languages.get('ar'));
    expect([0, 1, 2, 3, 11, 100].map((count) => ar('sessions', { count }))).toEqual([
      'لا جلسات',
      'جلسة واحدة',
      'جلستان',
      '3 جلسات',
      '11 جلسة',
      '100 جلسة',
    ]);
    expect(languages.get('ar').dir).toBe('rtl');
    expect(languages.get('de').dir).toBe('ltr');
    // An unknown tag is the default language.
    expect(languages.get('xx').locale).toBe('en');
  });

  it('take an application’s replaced messages and added languages, with English behind them', () => {
    const languages = new Languages({
      catalogs: [coreMessages, demo],
      overrides: {
        en: { 'demo.farewell': 'Bye' },
        de: { 'demo.greeting': 'Servus' },
        ES: { 'demo.greeting': 'Hola', 'core.nav.signIn': 'Iniciar sesión' },
      },
      defaultLocale: 'es',
    });
    expect(languages.tags).toEqual(['en', 'de', 'fr', 'ar', 'es']);
    expect(languages.defaultLocale).toBe('es');
    expect(demo.in(languages.get('de'))('greeting')).toBe('Servus');
    // The replaced English shows where a language has no text of its own.
    expect(demo.in(languages.get('de'))('farewell')).toBe('Bye');
    expect(demo.in(languages.get('es'))('farewell')).toBe('Bye');
    expect(coreMessages.in(languages.get('es'))('nav.signIn')).toBe('Iniciar sesión');
    expect(coreMessages.in(languages.get('es'))('nav.signOut')).toBe('Sign out');
    const missing = languages.missing();
    expect(missing.get('de')).toEqual(['demo.farewell', 'demo.since']);
    expect(missing.get('es')).toContain('core.nav.signOut');
    expect(missing.get('es')).not.toContain('core.nav.signIn');
  });

  it('refuse an unknown key, a default without a catalog and a malformed tag', () => {
    expect(
      () => new Languages({ catalogs: [coreMessages], overrides: { de: { 'core.nav.signin': 'x' } } }),
    ).toThrow(LanguageSettingError);
    expect(() => new Languages({ catalogs: [coreMessages], defaultLocale: 'it' })).toThrow(
      /defaultLocale "it"/,
    );
    expect(() => new Languages({ catalogs: [coreMessages], overrides: { 'not a tag!': {} } })).toThrow(
      /not a language tag/,
    );
  });

  it('keep a chosen message for later: English in logs, the reader’s language when written', () => {
    const languages = new Languages({ catalogs: [coreMessages, demo] });
    const text = demo.text('sessions', { count: 2 });
    expect(String(text)).toBe('2 sessions');
    expect(written(text, languages.get('de'))).toBe('2 Sitzungen');
    expect(written('as it is', languages.get('de'))).toBe('as it is');
    const keyed = keyedText('demo.greeting', 'Hello');
    expect(written(keyed, languages.get('de'))).toBe('Hallo');
    expect(written(keyedText('demo.nothing', 'Fallback'), languages.get('de'))).toBe('Fallback');
  });

  it('validation texts of a schema: the core’s by rule, a schema’s own by its catalog key', () => {
    const languages = new Languages({ catalogs: [coreMessages, demo] });
    const reader = inputReader(
      Type.Object({
        name: Type.String({
          pattern: '^[a-z]+$',
          'x-pattern-message': 'Hello',
          'x-pattern-message-key': 'demo.greeting',
        }),
      }),
    );
    try {
      reader.read({ name: 'A1' });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ValidationError);
      const problem = (error as ValidationError).options.errors!.name!;
      expect(String(problem)).toBe('Hello');
      expect(written(problem, languages.get('de'))).toBe('Hallo');
    }
  });
});
