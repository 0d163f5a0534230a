// Dialect-independent: reads the message catalogs only, no database; `npm test` runs it with the first database only.
import { describe, expect, it } from 'vitest';
import type { MessageCatalog } from '../../src/core/i18n/catalog.ts';
import type { MessageValue } from '../../src/core/i18n/types.ts';
import { coreMessages } from '../../src/core/i18n/messages/index.ts';
import type { CitadelPlugin } from '../../src/auth/core/plugin.ts';
import { authMessages } from '../../src/auth/core/messages/index.ts';
import { defaultPlugins } from '../../src/auth/index.ts';
import { organizations } from '../../src/auth/organizations/plugin.ts';
import { oauthProvider } from '../../src/auth/oauth-provider/plugin.ts';
import { blogPages } from '../../examples/blog/pages/plugin.ts';

/** The languages Citadel ships besides English: each must have every key, each in its own words. */
const SHIPPED = ['de', 'fr', 'ar'] as const;

/**
 * Messages that read the same as the English one on purpose, by full key: a separator pattern, a
 * date with a time-zone code. Nothing else may equal English in a shipped language.
 */
const SAME_AS_ENGLISH: ReadonlySet<string> = new Set([
  // `{title} · {app}`: the page title's pattern.
  'core.page.title',
  // The formatted date (already in the language) then the code "UTC".
  'core.time.utc',
  // A problem's title as a sentence: `{title}.`.
  'core.error.status',
]);

/** Words a language writes as English does (brand and technical terms): accepted as its text. */
const SAME_WORDS: Readonly<Record<(typeof SHIPPED)[number], readonly string[]>> = {
  de: ['Name', 'Passkey', 'Passkeys', 'Code', 'Token', 'Tokens', 'Browser', 'Status'],
  fr: ['Actions', 'Code', 'Sessions', 'Passkey', 'Passkeys', 'active'],
  ar: [],
};

/**
 * Every catalog of the core and of every plugin Citadel ships (built-in or opt-in). A converted
 * folder only registers its catalog on its plugin (`messages`): it is walked from there.
 */
function everyCatalog(): MessageCatalog[] {
  const plugins: readonly CitadelPlugin[] = [
    ...defaultPlugins(),
    organizations(),
    oauthProvider(),
    blogPages(),
  ];
  return [
    coreMessages,
    authMessages,
    ...plugins.flatMap((plugin) => (plugin.messages ? [plugin.messages] : [])),
  ];
}

/** A message as written: the text, or the function's source without its layout. */
function written(value: MessageValue): string {
  return typeof value === 'string' ? value : value.toString().replace(/\s+/g, ' ');
}

describe('message catalogs', () => {
  const catalogs = everyCatalog();

  it('have one namespace each', () => {
    const namespaces = catalogs.map((catalog) => catalog.namespace);
    expect(new Set(namespaces).size, namespaces.join(', ')).toBe(namespaces.length);
    expect(namespaces).toContain('password');
    for (const plugin of ['sudo', 'tokens', 'magic-link', 'accounts', 'pipeline', 'factors', 'social'])
      expect(namespaces).toContain(plugin);
  });

  for (const language of SHIPPED) {
    it(`${language}: every key of every catalog is translated`, () => {
      const missing: string[] = [];
      for (const catalog of catalogs) {
        const translation: Readonly<Record<string, MessageValue | undefined>> =
          catalog.translations[language] ?? {};
        for (const key of Object.keys(catalog.en))
          if (translation[key] === undefined) missing.push(`${catalog.namespace}.${key}`);
      }
      expect(missing).toEqual([]);
    });

    it(`${language}: no message is still the English one`, () => {
      const untranslated: string[] = [];
      for (const catalog of catalogs) {
        const translation: Readonly<Record<string, MessageValue | undefined>> =
          catalog.translations[language] ?? {};
        for (const [key, english] of Object.entries(catalog.en as Readonly<Record<string, MessageValue>>)) {
          const full = `${catalog.namespace}.${key}`;
          const value = translation[key];
          if (value === undefined || SAME_AS_ENGLISH.has(full)) continue;
          if (typeof value === 'string' && SAME_WORDS[language].includes(value)) continue;
          if (written(value) === written(english)) untranslated.push(`${full}: ${written(english)}`);
        }
      }
      expect(untranslated).toEqual([]);
    });

    it(`${language}: a message with parameters is still a function of them, a fixed text a text`, () => {
      const mismatched: string[] = [];
      for (const catalog of catalogs) {
        const translation: Readonly<Record<string, MessageValue | undefined>> =
          catalog.translations[language] ?? {};
        for (const [key, english] of Object.entries(catalog.en as Readonly<Record<string, MessageValue>>)) {
          const value = translation[key];
          if (value !== undefined && typeof english === 'string' && typeof value !== 'string')
            mismatched.push(`${catalog.namespace}.${key}`);
        }
      }
      expect(mismatched).toEqual([]);
    });
  }

  it('allow-list only keys that exist', () => {
    const keys = new Set(
      catalogs.flatMap((catalog) => Object.keys(catalog.en).map((key) => `${catalog.namespace}.${key}`)),
    );
    expect([...SAME_AS_ENGLISH].filter((key) => !keys.has(key))).toEqual([]);
  });
});
