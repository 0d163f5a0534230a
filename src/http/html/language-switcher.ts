import { html, type SafeHtml } from './html.ts';
import type { PageContext } from '../response/respond.ts';
import { coreMessages } from '../../core/i18n/messages/index.ts';

const names = new Map<string, string>();

/** A language's name in itself ("Deutsch", "العربية"), as `Intl.DisplayNames` gives it. */
function ownName(tag: string): string {
  let name = names.get(tag);
  if (name === undefined) {
    const shown = new Intl.DisplayNames([tag], { type: 'language' }).of(tag) ?? tag;
    name = shown.charAt(0).toLocaleUpperCase(tag) + shown.slice(1);
    names.set(tag, name);
  }
  return name;
}

/** The current URL's query with `lang` set: the page stays the same, its other parameters too. */
function withLang(query: Record<string, unknown>, tag: string): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (key === 'lang') continue;
    if (typeof value === 'string') params.append(key, value);
    else if (Array.isArray(value))
      for (const item of value) if (typeof item === 'string') params.append(key, item);
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
