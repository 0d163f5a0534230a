import { createFormatter } from './format.ts';
import type {
  EnglishCatalog,
  Formatter,
  MessageValue,
  ParamsOf,
  TextDirection,
  Translation,
} from './types.ts';

/** One request's language: what a page, an email or an answer is written in. */
export interface Language {
  /** The language tag (`de`, `pt-BR`): `<html lang>`, `Content-Language`. */
  readonly locale: string;
  readonly dir: TextDirection;
  readonly format: Formatter;
  /** The message of a full key (`namespace.key`) in this language, else English; undefined when unknown. */
  lookup(key: string): MessageValue | undefined;
}

/** A catalog's messages as a typed function: `t('key')`, `t('key', { count: 2 })`. */
export type Texts<E extends EnglishCatalog> = <K extends keyof E & string>(
  key: K,
  ...params: ParamsOf<E[K]>
) => string;

/**
 * A message chosen now and written later, in the reader's language: an error's message, an
 * envelope's `message`, a validation text. Its `toString()` is the English text (logs, tests,
 * code not yet converted).
 */
export class LocalText {
  constructor(
    readonly catalog: MessageCatalog,
    readonly key: string,
    readonly params: unknown,
  ) {}

  /** The text in `language`. */
  in(language: Language): string {
    return write(
      language.lookup(`${this.catalog.namespace}.${this.key}`) ?? this.catalog.en[this.key],
      this.params,
      language.format,
      this.key,
    );
  }

  toString(): string {
    return write(this.catalog.en[this.key], this.params, englishFormat(), this.key);
  }
}

/** Text a person reads: written already (not yet converted code, user data) or chosen from a catalog. */
export type Text = string | LocalText;

/** A text in `language`: a plain string stays as it is. */
export function written(text: Text, language: Language): string {
  return typeof text === 'string' ? text : text.in(language);
}

/** Every value of a record in `language` (an answer's `errors`). */
export function writtenAll(
  texts: Readonly<Record<string, Text>>,
  language: Language,
): Record<string, string> {
  // fromEntries defines own properties: a field named `__proto__` stays a field, not a prototype.
  return Object.fromEntries(Object.entries(texts).map(([field, text]) => [field, written(text, language)]));
}

function write(value: MessageValue | undefined, params: unknown, format: Formatter, key: string): string {
  if (value === undefined) return key;
  return typeof value === 'string' ? value : value(params, format);
}

let english: Formatter | undefined;
function englishFormat(): Formatter {
  english ??= createFormatter('en');
  return english;
}

/**
 * A plugin's or the core's messages: the English catalog (the typed source) and its translations,
 * under a namespace that prefixes every key (`password.title`) for overrides and `citadel check`.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a catalog of any English keys
export interface MessageCatalog<E extends EnglishCatalog = any> {
  readonly namespace: string;
  readonly en: E;
  /** Other languages by tag (`de`, `fr`, `ar`). */
  readonly translations: Readonly<Record<string, Translation<E>>>;
  /** The messages in `language`, as a typed function. */
  in(language: Language): Texts<E>;
  /** A message to be written later in the reader's language (errors, envelope messages). */
  text<K extends keyof E & string>(key: K, ...params: ParamsOf<E[K]>): LocalText;
}

const NAMESPACE = /^[a-z][a-z0-9_-]*$/;

/**
 * Declare a catalog: `defineMessages('password', en, { de, fr, ar })`. `en` is written with
 * `satisfies EnglishCatalog` (its keys and parameters are the type every translation follows).
 */
export function defineMessages<const E extends EnglishCatalog>(
  namespace: string,
  en: E,
  translations: { readonly [language: string]: Translation<E> } = {},
): MessageCatalog<E> {
  if (!NAMESPACE.test(namespace)) throw new Error(`message namespace "${namespace}" must match ${NAMESPACE}`);
  const catalog: MessageCatalog<E> = {
    namespace,
    en,
    translations,
    in(language) {
      const prefix = `${namespace}.`;
      return (key, ...params) =>
        write(language.lookup(prefix + key) ?? en[key], params[0], language.format, key);
    },
    text: (key, ...params) => new LocalText(catalog, key, params[0]),
  };
  return catalog;
}

/**
 * A message named by its full key (`accounts.usernamePattern`) where no catalog handle can be
 * passed (a schema's `x-message-key`): `english` when no catalog of the server has the key.
 */
export function keyedText(fullKey: string, english: string): LocalText {
  const dot = fullKey.indexOf('.');
  const namespace = dot === -1 ? '' : fullKey.slice(0, dot);
  const key = fullKey.slice(dot + 1);
  const stand: MessageCatalog<Record<string, string>> = {
    namespace,
    en: { [key]: english },
    translations: {},
    in: () => () => english,
    text: () => new LocalText(stand, key, undefined),
  };
  return new LocalText(stand, key, undefined);
}
