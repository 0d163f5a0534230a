/**
 * The shapes of message catalogs. An English catalog is the typed source: each key maps to a text,
 * or to a function of its parameters and the language's formatter. Another language's catalog is a
 * partial copy of it with the same parameters (`Translation`), so a missing key is not a compile
 * error there (it falls back to English) but a wrong key or parameter is.
 */

/** Plural categories of `Intl.PluralRules`; `other` is always needed. */
export interface PluralForms {
  zero?: string;
  one?: string;
  two?: string;
  few?: string;
  many?: string;
  other: string;
}

/** Numbers, dates and plurals in one language, through `Intl` (instances cached per language). */
export interface Formatter {
  readonly locale: string;
  number(value: number, options?: Intl.NumberFormatOptions): string;
  /** A date or timestamp (ISO text, Date or epoch milliseconds); medium date and short time by default. */
  date(value: string | number | Date, options?: Intl.DateTimeFormatOptions): string;
  /** The form for `count` (`Intl.PluralRules`), with `#` replaced by the formatted number. */
  plural(count: number, forms: PluralForms): string;
  /** A list ("a, b and c") through `Intl.ListFormat`. */
  list(items: readonly string[], type?: 'conjunction' | 'disjunction'): string;
}

/** A message with parameters: a function of them and the language's formatter. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any parameter object fits a catalog
export type MessageFunction<P = any> = (params: P, format: Formatter) => string;

/** One message: a fixed text, or a function of its parameters. */
export type MessageValue = string | MessageFunction;

/** An English catalog: the keys and parameters every language follows. */
export type EnglishCatalog = Readonly<Record<string, MessageValue>>;

/** The parameters a message takes (none for a fixed text). */
export type ParamsOf<V> = V extends (params: infer P, format: Formatter) => string ? [params: P] : [];

/** Another language's catalog of the English `E`: any of its keys, with the same parameters. */
export type Translation<E extends EnglishCatalog> = {
  readonly [K in keyof E]?: E[K] extends string
    ? string
    : E[K] extends (params: infer P, format: Formatter) => string
      ? ((params: P, format: Formatter) => string) | string
      : never;
};

/** Every key of `E` translated: what the shipped languages are checked against. */
export type CompleteTranslation<E extends EnglishCatalog> = Required<Translation<E>>;

/** Writing direction of a language. */
export type TextDirection = 'ltr' | 'rtl';
