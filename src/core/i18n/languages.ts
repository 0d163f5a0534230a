import { createFormatter } from './format.ts';
import { coreMessages } from './messages/index.ts';
import type { Language, MessageCatalog } from './catalog.ts';
import type { MessageValue, TextDirection } from './types.ts';

/** `locales` in the configuration: per language, messages by full key (`core.signIn`, `password.title`). */
export type LocaleOverrides = Readonly<Record<string, Readonly<Record<string, MessageValue>>>>;

/** Languages written right to left (primary subtags). */
const RIGHT_TO_LEFT = new Set([
  'ar',
  'arc',
  'ckb',
  'dv',
  'fa',
  'he',
  'ks',
  'ku',
  'ps',
  'sd',
  'ug',
  'ur',
  'yi',
]);

export function directionOf(locale: string): TextDirection {
  return RIGHT_TO_LEFT.has(locale.split('-')[0]!.toLowerCase()) ? 'rtl' : 'ltr';
}

export interface LanguagesOptions {
  /** The core's catalog first: its languages are the shipped ones. */
  catalogs: readonly MessageCatalog[];
  /** The application's added languages and replaced messages. */
  overrides?: LocaleOverrides;
  /** When nothing else chooses (default `en`); must be an available language. */
  defaultLocale?: string;
}

/** A language name the configuration cannot use. */
export class LanguageSettingError extends Error {
  override name = 'LanguageSettingError';
}

/**
 * The languages of one server: each one's messages merged once at start (English, then the
 * catalogs' translation, then the application's overrides), so a message costs one map lookup.
 */
export class Languages {
  /** Available tags by lower-cased tag. */
  readonly available: ReadonlyMap<string, string>;
  readonly defaultLocale: string;
  /** The available tags: English first, then the shipped languages, then the application's. */
  readonly tags: readonly string[];
  private readonly languages = new Map<string, Language>();
  private readonly catalogs: readonly MessageCatalog[];
  private readonly overrides: LocaleOverrides;

  constructor(options: LanguagesOptions) {
    this.catalogs = options.catalogs;
    this.overrides = options.overrides ?? {};
    const known = new Set<string>();
    for (const catalog of this.catalogs)
      for (const key of Object.keys(catalog.en)) known.add(`${catalog.namespace}.${key}`);
    const tags = new Map<string, string>([['en', 'en']]);
    const shipped = this.catalogs[0] ? Object.keys(this.catalogs[0].translations) : [];
    for (const tag of [...shipped, ...Object.keys(this.overrides)]) {
      const canonical = canonicalTag(tag);
      tags.set(canonical.toLowerCase(), canonical);
    }
    for (const [tag, messages] of Object.entries(this.overrides)) {
      for (const [key, value] of Object.entries(messages)) {
        if (!known.has(key))
          throw new LanguageSettingError(
            `locales.${tag}: "${key}" is not a message of Citadel or its plugins`,
          );
        if (typeof value !== 'string' && typeof value !== 'function')
          throw new LanguageSettingError(`locales.${tag}.${key} must be a string or a function`);
      }
    }
    this.available = tags;
    this.tags = [...tags.values()];
    const wanted = options.defaultLocale ?? 'en';
    const defaultLocale = tags.get(wanted.toLowerCase());
    if (!defaultLocale)
      throw new LanguageSettingError(
        `defaultLocale "${wanted}" has no catalog (known: ${[...tags.values()].join(', ')})`,
      );
    this.defaultLocale = defaultLocale;
    for (const tag of tags.values()) this.languages.set(tag, this.build(tag));
  }

  /** The available spelling of `tag` (case ignored), or undefined. */
  find(tag: string | null | undefined): string | undefined {
    return tag ? this.available.get(tag.toLowerCase()) : undefined;
  }

  /** The language `tag` names, else the default one. */
  get(tag?: string | null): Language {
    return this.languages.get(this.find(tag) ?? this.defaultLocale)!;
  }

  /** Per available language other than English, the full keys it lacks (English is shown instead). */
  missing(): Map<string, string[]> {
    const report = new Map<string, string[]>();
    for (const tag of this.available.values()) {
      if (tag === 'en') continue;
      const keys: string[] = [];
      const overrides = this.overridesOf(tag);
      for (const catalog of this.catalogs) {
        const translation: Readonly<Record<string, unknown>> = catalog.translations[tag] ?? {};
        for (const key of Object.keys(catalog.en)) {
          const full = `${catalog.namespace}.${key}`;
          if (!Object.hasOwn(translation, key) && !Object.hasOwn(overrides, full)) keys.push(full);
        }
      }
      report.set(tag, keys);
    }
    return report;
  }

  private overridesOf(tag: string): Readonly<Record<string, MessageValue>> {
    const merged: Record<string, MessageValue> = {};
    for (const [given, messages] of Object.entries(this.overrides))
      if (canonicalTag(given) === tag) Object.assign(merged, messages);
    return merged;
  }

  private build(tag: string): Language {
    const table = new Map<string, MessageValue>();
    const englishOverrides = this.overridesOf('en');
    for (const catalog of this.catalogs) {
      const translation: Readonly<Record<string, MessageValue | undefined>> =
        tag === 'en' ? {} : (catalog.translations[tag] ?? {});
      for (const [key, english] of Object.entries(catalog.en)) {
        const full = `${catalog.namespace}.${key}`;
        table.set(full, translation[key] ?? englishOverrides[full] ?? english);
      }
    }
    for (const [key, value] of Object.entries(this.overridesOf(tag))) table.set(key, value);
    return {
      locale: tag,
      dir: directionOf(tag),
      format: createFormatter(tag),
      lookup: (key) => table.get(key),
    };
  }
}

function canonicalTag(tag: string): string {
  try {
    return Intl.getCanonicalLocales(tag)[0]!;
  } catch {
    throw new LanguageSettingError(`"${tag}" is not a language tag`);
  }
}

let english: Language | undefined;
/** English alone, from the core's catalog (what a message is written in before the server's languages are known). */
export function englishOnly(): Language {
  english ??= new Languages({ catalogs: [coreMessages] }).get('en');
  return english;
}
