/**
 * Escaped-by-default HTML templates: interpolated values are escaped unless they are SafeHtml
 * (the result of another `html` template or of `raw()`), arrays are joined, null/false print nothing.
 */
export class SafeHtml {
  constructor(private readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Escape text for HTML content and quoted attribute values. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

/** What may be interpolated into `html`: text is escaped, `SafeHtml` is kept, arrays are joined. */
export type HtmlValue = SafeHtml | string | number | boolean | null | undefined | HtmlValue[];

function render(value: HtmlValue): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof SafeHtml) return value.toString();
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

/** Tagged template for HTML: every interpolated value is escaped unless it is `SafeHtml`. */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    out += render(value) + (strings[i + 1] ?? '');
  });
  return new SafeHtml(out);
}

/** Trusted markup, for example a server-generated SVG. Never for user input. */
export function raw(markup: string): SafeHtml {
  return new SafeHtml(markup);
}

/**
 * A stylesheet of the code itself for an inline `<style>` element: a constant, never user input.
 * Its text is kept as written, because the HTML text escaper would turn `"Segoe UI"` into
 * `&quot;Segoe UI&quot;`, which CSS cannot read (and the whole rule is dropped). It may not contain
 * `</`, so it cannot end its element.
 */
export function trustedCss(css: string): SafeHtml {
  if (css.includes('</')) throw new Error('trustedCss: a stylesheet may not contain "</"');
  return new SafeHtml(css);
}
