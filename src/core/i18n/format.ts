import type { Formatter, PluralForms } from './types.ts';

const DEFAULT_DATE: Intl.DateTimeFormatOptions = {
  dateStyle: 'medium',
  timeStyle: 'short',
  timeZone: 'UTC',
};

/**
 * The formatter of one language. `Intl` constructors are the slow part (tens of microseconds each):
 * one instance per language and option set, made on first use and kept.
 */
export function createFormatter(locale: string): Formatter {
  const numbers = new Map<string, Intl.NumberFormat>();
  const dates = new Map<string, Intl.DateTimeFormat>();
  const lists = new Map<string, Intl.ListFormat>();
  const plurals = new Intl.PluralRules(locale);
  const cached = <T>(cache: Map<string, T>, options: object | undefined, make: () => T): T => {
    const key = options ? JSON.stringify(options) : '';
    let value = cache.get(key);
    if (!value) cache.set(key, (value = make()));
    return value;
  };
  const number = (value: number, options?: Intl.NumberFormatOptions) =>
    cached(numbers, options, () => new Intl.NumberFormat(locale, options)).format(value);
  return {
    locale,
    number,
    date: (value, options) =>
      cached(dates, options, () => new Intl.DateTimeFormat(locale, options ?? DEFAULT_DATE)).format(
        value instanceof Date ? value : new Date(value),
      ),
    plural: (count: number, forms: PluralForms) => {
      const category = plurals.select(count);
      // Exact zero first when given (English "no sessions"), then the language's category.
      const form = (count === 0 ? forms.zero : undefined) ?? forms[category] ?? forms.other;
      return form.replace(/#/g, number(count));
    },
    list: (items, type = 'conjunction') =>
      cached(lists, { type }, () => new Intl.ListFormat(locale, { type })).format(items),
  };
}
