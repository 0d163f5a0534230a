import { html, type SafeHtml } from '../../core/html.ts';
import type { PageContext } from '../response/respond.ts';
import { coreMessages } from '../../core/i18n/messages/index.ts';

const names = new Map<string, string>();

/** A language's name in itself ("Deutsch", "العربية"), as `Intl.DisplayNames` gives it. */
export function ownName(tag: string): string {
  let name = names.get(tag);
  if (name === undefined) {
    const shown = new Intl.DisplayNames([tag], { type: 'language' }).of(tag) ?? tag;
    name = shown.charAt(0).toLocaleUpperCase(tag) + shown.slice(1);
    names.set(tag, name);
  }
  return name;
}

/** A query name or value kept in the switcher's links: plain tokens only (ids, paths, cursors). */
const PLAIN = /^[A-Za-z0-9_.~:/-]{1,256}$/;

/**
 * The current URL's query with `lang` set: the page stays the same (a reset link's token, a
 * page's cursor). Only plain parameters are kept: free text a visitor typed or a hostile link
 * carried is never echoed back into the page.
 */
function withLang(query: Record<string, unknown>, tag: string): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (key === 'lang' || !PLAIN.test(key)) continue;
    const values = Array.isArray(value) ? value : [value];
    for (const item of values) if (typeof item === 'string' && PLAIN.test(item)) params.append(key, item);
  }
  params.set('lang', tag);
  return `?${params.toString()}`;
}

/**
 * Links to the page in each available language (`?lang=`, remembered in a cookie), each named in
 * its own language and marked with `hreflang` and `lang`; the current one is `aria-current`.
 */
export function languageSwitcher(ctx: PageContext): SafeHtml | '' {
  if (ctx.languages.length < 2) return '';
  const current = ctx.language.locale;
  return html`<nav class="languages" aria-label="${coreMessages.in(ctx.language)('nav.language')}">
    <ul>
      ${ctx.languages.map(
        (tag) =>
          html`<li>
            <a
              href="${withLang(ctx.query, tag)}"
              hreflang="${tag}"
              lang="${tag}"
              ${tag === current ? html`aria-current="true"` : ''}
              >${ownName(tag)}</a
            >
          </li>`,
      )}
    </ul>
  </nav>`;
}
