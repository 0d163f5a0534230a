/** One entry of an `Accept-Language` header. */
export interface LanguageRange {
  /** Lower-cased range (`de-ch`, `*`). */
  range: string;
  q: number;
}

const RANGE = /^(?:\*|[a-z]{1,8}(?:-[a-z0-9]{1,8})*)$/i;
const WEIGHT = /^q=(0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/i;
/** More ranges than anyone sends: the rest is not read (bounded work for a hostile header). */
const MAX_RANGES = 32;

/**
 * The ranges of an `Accept-Language` header (RFC 9110 §12.5.4), highest weight first, in header
 * order among equal weights. A malformed entry is skipped, not the whole header.
 */
export function parseAcceptLanguage(header: string | undefined): LanguageRange[] {
  if (!header) return [];
  const ranges: LanguageRange[] = [];
  for (const entry of header.split(',', MAX_RANGES)) {
    const [rawRange, ...parameters] = entry.split(';').map((part) => part.trim());
    if (!rawRange || !RANGE.test(rawRange)) continue;
    let q = 1;
    let valid = true;
    for (const parameter of parameters) {
      const weight = WEIGHT.exec(parameter);
      if (weight) q = Number(weight[1]);
      else valid = false;
    }
    if (valid) ranges.push({ range: rawRange.toLowerCase(), q });
  }
  // Array.prototype.sort is stable: equal weights keep the header's order.
  return ranges.sort((a, b) => b.q - a.q);
}

/** `de-ch-1996` → `de-ch` → `de`; a single-letter subtag left at the end goes too (RFC 4647 §3.4). */
function shorter(tag: string): string | undefined {
  let cut = tag.lastIndexOf('-');
  if (cut === -1) return undefined;
  let rest = tag.slice(0, cut);
  cut = rest.lastIndexOf('-');
  if (cut !== -1 && rest.length - cut === 2) rest = rest.slice(0, cut);
  return rest;
}

/**
 * RFC 4647 §3.4 lookup: the first range, by weight, that names an available language, itself or
 * shortened (`de-CH` → `de`). `q=0` excludes a language; `*` stands for the default. Case is
 * ignored; the answer is spelled as in `available`. Undefined when nothing matches.
 */
export function lookupLanguage(
  header: string | undefined,
  available: ReadonlyMap<string, string>,
  defaultLocale: string,
): string | undefined {
  const ranges = parseAcceptLanguage(header);
  const excluded = new Set(ranges.filter((entry) => entry.q === 0).map((entry) => entry.range));
  for (const { range, q } of ranges) {
    if (q === 0) continue;
    if (range === '*') {
      if (!excluded.has(defaultLocale.toLowerCase())) return defaultLocale;
      continue;
    }
    for (let tag: string | undefined = range; tag; tag = shorter(tag)) {
      if (excluded.has(tag)) break;
      const match = available.get(tag);
      if (match) return match;
    }
  }
  return undefined;
}
