import { html, trustedCss, type HtmlValue, type SafeHtml } from '../../core/html.ts';
import type { PageContext } from '../response/respond.ts';
import type { Language } from '../../core/i18n/catalog.ts';
import { coreMessages } from '../../core/i18n/messages/index.ts';
import { languageSwitcher } from './language-switcher.ts';

/** The pages' built-in styles, kept as written (not through the text escaper: see trustedCss). */
const STYLE = trustedCss(`
:root{--ink:#1d2330;--muted:#5b6577;--line:#d8dde6;--soft:#f4f6f9;--brand:#2347b8;--brand-ink:#fff;--danger:#b42318;--ok:#e6f4ea;--info:#e8effc;--bad:#fdecec;--radius:8px}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;font-size:1rem;line-height:1.55;color:var(--ink);background:#fff;margin:0}
.site-header{border-bottom:1px solid var(--line);background:var(--soft)}
.site-header .bar{max-width:46rem;margin:0 auto;padding:.6rem 1rem;display:flex;flex-wrap:wrap;gap:.35rem 1rem;align-items:center}
.site-header .brand{font-weight:700;margin-inline-end:auto;text-decoration:none;color:var(--ink);font-size:1.1rem}
.site-header .links{display:flex;flex-wrap:wrap;gap:.25rem 1rem}
.site-header a{color:var(--ink)}
.site-header form{margin:0}
td button{margin-top:0}
.switcher{display:flex;gap:.4rem;align-items:center}.switcher select{width:auto;max-width:16rem;padding:.25rem .4rem}.switcher button{margin:0;padding:.25rem .6rem}
.site-header .bar.with-parts .links{order:3;flex-basis:100%}
form>select+button,form>input:not([type=hidden])+button{display:block}
main{max-width:46rem;margin:0 auto;padding:1.25rem 1rem 3rem}
h1{font-size:1.6rem;line-height:1.25;margin:.5rem 0 1rem}
h2{font-size:1.15rem;margin:1.5rem 0 .5rem}
p{margin:.5rem 0}
a{color:var(--brand)}
label{display:block;margin:.9rem 0 .3rem;font-weight:600}
label.check{display:flex;gap:.5rem;align-items:center;font-weight:400}
input[type=text],input[type=email],input[type=password],input[type=date],input[type=datetime-local],select{width:100%;max-width:28rem;padding:.55rem .6rem;font:inherit;border:1px solid #8d96a6;border-radius:6px;background:#fff}
input:focus-visible,button:focus-visible,a:focus-visible,select:focus-visible{outline:3px solid #7aa2ff;outline-offset:2px}
[tabindex="-1"]:focus{outline:none}
input[aria-invalid=true]{border-color:var(--danger)}
button,.button{display:inline-block;margin-top:1rem;padding:.55rem 1rem;font:inherit;font-weight:600;border:1px solid var(--brand);border-radius:6px;background:var(--brand);color:var(--brand-ink);cursor:pointer;text-decoration:none;line-height:1.3}
button.secondary,.button.secondary{background:#fff;color:var(--ink);border-color:#8d96a6}
button.danger,.button.danger{background:#fff;color:var(--danger);border-color:var(--danger)}
button.danger:hover,.button.danger:hover{background:var(--danger);color:#fff}
button.link{background:none;border:0;color:var(--ink);padding:0;margin:0;font-weight:400;text-decoration:underline}
.actions{display:flex;flex-wrap:wrap;gap:.75rem 1rem;align-items:center;margin:1rem 0}
.actions form,.actions button,.actions .button{margin:0}
.flash{padding:.75rem 1rem;border-radius:var(--radius);margin:0 0 1rem;border:1px solid transparent}
.flash.success{background:var(--ok);border-color:#b7dfc1}.flash.info{background:var(--info);border-color:#c3d3f5}.flash.error{background:var(--bad);border-color:#f3c1bd}
.field-error{color:var(--danger);font-size:.95em;margin:.25rem 0}
.hint{color:var(--muted);font-size:.95em}
code,.secret{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;background:var(--soft);padding:.1rem .3rem;border-radius:4px;font-size:.92em}
.secret,.wrap{overflow-wrap:anywhere}
code.ability{white-space:nowrap}
.card{border:1px solid var(--line);border-radius:var(--radius);padding:.75rem 1rem;margin:1rem 0}
.card h2{margin-top:.25rem}
.danger-zone{border-color:#f3c1bd}
.facts{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem;margin:.5rem 0}
.facts dt{color:var(--muted)}.facts dd{margin:0;min-width:0;overflow-wrap:anywhere}
.settings{display:flex;flex-wrap:wrap;gap:.5rem;margin:1rem 0}
.settings a{padding:.4rem .75rem;border:1px solid var(--line);border-radius:999px;text-decoration:none;background:var(--soft)}
ul.plain,ol.plain{list-style:none;padding:0;margin:0}
.badge{display:inline-block;font-size:.8em;padding:.05rem .5rem;border-radius:999px;background:var(--info);margin-inline-start:.4rem}td[data-label]>.badge:first-child,dd>.badge:first-child{margin-inline-start:0}
.badge.muted{background:var(--soft)}
.event{padding:.6rem 0;border-bottom:1px solid var(--line)}.event time{white-space:nowrap}
.pager{display:flex;gap:1rem;align-items:center;margin:1rem 0}
.table-wrap{overflow-x:auto}
table{border-collapse:collapse;width:100%}td,th{text-align:start;padding:.45rem .4rem;border-bottom:1px solid var(--line);vertical-align:top}
.inline{display:inline}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.qr{display:block;background:#fff;border:1px solid var(--line);border-radius:var(--radius);padding:.5rem;max-width:100%;height:auto}
.codes{columns:2;padding-inline-start:1.2rem}
.impersonation{display:flex;flex-wrap:wrap;gap:.25rem 1rem;align-items:center;justify-content:center;padding:.5rem 1rem;background:#fff4ce;border-bottom:2px solid #8a6100;color:#3d2b00}
.impersonation p{margin:0}.impersonation form{margin:0}.impersonation button{margin:0;padding:.3rem .9rem;background:#3d2b00;border-color:#3d2b00}
.site-footer{max-width:46rem;margin:0 auto;padding:1rem;border-top:1px solid var(--line);color:var(--muted)}
.languages ul{display:flex;flex-wrap:wrap;gap:.25rem 1rem;list-style:none;margin:0;padding:0}.languages a[aria-current]{color:var(--ink);font-weight:600;text-decoration:none}
.divider{display:flex;align-items:center;gap:.75rem;color:var(--muted);margin:1.25rem 0}.divider::before,.divider::after{content:"";flex:1;border-top:1px solid var(--line)}
@media (max-width:30rem){.site-header .bar{padding:.5rem 1rem;column-gap:.85rem}
  .site-header .bar.with-parts .switcher{order:2;flex-basis:100%;min-width:0}.site-header .bar.with-parts .switcher select{flex:1;max-width:none;min-width:0}
  .site-header .bar.signed-in .links{order:3;flex-basis:100%;gap:.25rem .85rem}
  .facts{grid-template-columns:1fr}.facts dt{margin-top:.4rem}.codes{columns:1}
  table.stack thead{display:none}table.stack tr{display:block;border-bottom:1px solid var(--line);padding:.4rem 0}table.stack td{display:block;border:0;padding:.15rem 0}
  table.stack td[data-label]::before{content:attr(data-label) ": ";color:var(--muted)}}
`);

/**
 * Links to the pages this server has, in order, each `<a>` separated by `separator`: a page of a
 * plugin that is left out is not linked (`ctx.serves`).
 */
export function servedLinks(
  ctx: PageContext,
  links: readonly (readonly [path: string, label: string | SafeHtml])[],
  separator: string | SafeHtml = ' ',
): SafeHtml {
  const shown = links.filter(([path]) => ctx.serves(path));
  return html`${shown.map(([path, label], index) => html`${index > 0 ? separator : ''}<a href="${path}">${label}</a>`)}`;
}

/**
 * A link to where a visitor signs in: the password form, else the sign-in link form, else (neither
 * plugin on) the text alone.
 */
export function signInLink(ctx: PageContext, label: string): SafeHtml {
  const path = ['/login', '/magic-link'].find((candidate) => ctx.serves(candidate));
  return path ? html`<a href="${path}">${label}</a>` : html`${label}`;
}

/** The page header: the account pages for a signed-in user, sign-in and registration for others. */
function header(ctx: PageContext): SafeHtml {
  const t = coreMessages.in(ctx.language);
  // Signed in, a narrow screen shows two tidy rows: the name and "Sign out", then the page links;
  // with a plugin's header part (the organization switcher), every screen does.
  const links = ctx.user
    ? html`<span class="links"
          >${servedLinks(ctx, [
            ['/account', t('nav.account')],
            ['/sessions', t('nav.sessions')],
            ['/two-factor', t('nav.twoFactor')],
            ['/tokens', t('nav.tokens')],
          ])}</span
        >
        <form class="inline" method="post" action="/logout">
          <input type="hidden" name="_csrf" value="${ctx.csrf}" /><button class="link" type="submit">
            ${t('nav.signOut')}
          </button>
        </form>`
    : html`<span class="links"
        >${servedLinks(ctx, [
          ['/login', t('nav.signIn')],
          ['/register', t('nav.register')],
        ])}</span
      >`;
  return html`<header class="site-header">
    <nav
      class="bar${ctx.user ? ' signed-in' : ''}${ctx.headerParts?.length ? ' with-parts' : ''}"
      aria-label="${t('nav.main')}"
    >
      ${ctx.serves('/') ? html`<a class="brand" href="/">${ctx.appName}</a>` : html`<span class="brand">${ctx.appName}</span>`}${[...(ctx.headerParts ?? [])]}${links}
    </nav>
  </header>`;
}

/**
 * The error banner: only for an error that no field message already says ("Validation failed."
 * and a credentials error shown beside the form would otherwise appear twice).
 */
function errorBanner(ctx: PageContext): SafeHtml | '' {
  const outcome = ctx.outcome;
  if (outcome?.status !== 'error' || !outcome.message || ctx.flash) return '';
  if (Object.keys(ctx.errors).length > 0) return '';
  return html`<div class="flash error" role="alert">${outcome.message}</div>`;
}

// Private-use characters no message or name contains: where a name goes in a translated sentence.
const ADMIN_SLOT = '\u{E000}';
const USER_SLOT = '\u{E001}';

/** A translated sentence with each slot replaced by its name in bold (every part escaped). */
function withStrong(sentence: string, slots: readonly (readonly [slot: string, name: string])[]): SafeHtml {
  let parts: (string | SafeHtml)[] = [sentence];
  for (const [slot, name] of slots)
    parts = parts.flatMap((part) =>
      typeof part === 'string'
        ? part
            .split(slot)
            .flatMap((piece, index) => (index === 0 ? [piece] : [html`<strong>${name}</strong>`, piece]))
        : [part],
    );
  return html`${parts}`;
}

/** An administrator acting as the signed-in user: who, and a way back. */
function impersonationBanner(ctx: PageContext): SafeHtml | '' {
  if (!ctx.impersonator || !ctx.user) return '';
  const t = coreMessages.in(ctx.language);
  return html`<div class="impersonation" role="region" aria-label="${t('impersonation.region')}">
    <p>
      ${withStrong(t('impersonation.notice', { admin: ADMIN_SLOT, user: USER_SLOT }), [
        [ADMIN_SLOT, ctx.impersonator.username],
        [USER_SLOT, ctx.user.username],
      ])}
    </p>
    <form class="inline" method="post" action="/admin/impersonation/stop">
      <input type="hidden" name="_csrf" value="${ctx.csrf}" /><button type="submit">
        ${t('impersonation.stop')}
      </button>
    </form>
  </div>`;
}

/** The page frame: header, the one-time flash message or error, then the content. */
export function layout(ctx: PageContext, title: string, content: HtmlValue, head: HtmlValue = ''): SafeHtml {
  const { language } = ctx;
  const t = coreMessages.in(language);
  return html`<!doctype html>
    <html lang="${language.locale}" dir="${language.dir}">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title === ctx.appName ? ctx.appName : t('page.title', { title, app: ctx.appName })}</title>
        <link rel="icon" href="data:," />
        <style>
          ${STYLE}
        </style>
        ${ctx.stylesheet ? html`<link rel="stylesheet" href="${ctx.stylesheet}" />` : ''}
        <script src="/assets/ui.js" defer></script>
        ${head}
      </head>
      <body>
        ${impersonationBanner(ctx)}${header(ctx)}
        <main>
          ${ctx.flash ? html`<div class="flash ${ctx.flash.type}" role="status">${ctx.flash.message}</div>` : ''}
          ${errorBanner(ctx)}
          <h1>${title}</h1>
          ${content}
        </main>
        <footer class="site-footer">${languageSwitcher(ctx)}</footer>
      </body>
    </html>`;
}

/** A labelled input of a page form. */
export interface FieldOptions {
  name: string;
  label: string;
  type?: 'text' | 'email' | 'password' | 'datetime-local' | 'date' | 'hidden';
  autocomplete?: string;
  required?: boolean;
  inputmode?: string;
  value?: string;
  /** The field's rules, shown under the label and announced with the input. */
  hint?: string;
  /**
   * The label is for screen readers only: a heading right above already says it ("Password"
   * under "Password" reads twice).
   */
  hideLabel?: boolean;
}

/** A labelled input, re-filled from the submitted input and followed by its error, if any. */
export function field(ctx: PageContext, options: FieldOptions): SafeHtml {
  const value = options.value ?? (options.type === 'password' ? '' : (ctx.input[options.name] ?? ''));
  const error = ctx.errors[options.name];
  const id = `field-${options.name}`;
  const described = [options.hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return html`<label for="${id}" ${options.hideLabel ? html`class="visually-hidden"` : ''}
      >${options.label}</label
    >
    ${options.hint ? html`<div class="hint" id="${id}-hint">${options.hint}</div>` : ''}
    <input
      id="${id}"
      name="${options.name}"
      type="${options.type ?? 'text'}"
      value="${value}"
      ${options.autocomplete ? html`autocomplete="${options.autocomplete}"` : ''}
      ${options.inputmode ? html`inputmode="${options.inputmode}"` : ''}
      ${options.required ? 'required' : ''}
      ${error ? html`aria-invalid="true"` : ''}
      ${described ? html`aria-describedby="${described}"` : ''}
    />
    ${error ? html`<div class="field-error" id="${id}-error">${error}</div>` : ''}`;
}

/** The hidden CSRF token field every form must carry. */
export function csrfField(ctx: PageContext): SafeHtml {
  return html`<input type="hidden" name="_csrf" value="${ctx.csrf}" />`;
}

/** A form posting to `action` with the CSRF field. */
export function form(
  ctx: PageContext,
  action: string,
  content: HtmlValue,
  submit: string,
  attrs: SafeHtml | '' = '',
  buttonClass = '',
): SafeHtml {
  return html`<form method="post" action="${action}" ${attrs}>
    ${csrfField(ctx)}${content}<button type="submit" ${buttonClass ? html`class="${buttonClass}"` : ''}>
      ${submit}
    </button>
  </form>`;
}

/**
 * A timestamp as people read it, machine-readable in `datetime`: in `language` ("24. Nov. 2026,
 * 09:30 UTC"), else as "2026-11-24 09:30 UTC".
 */
export function when(
  value: string | null | undefined,
  fallback: string,
  language?: Language,
): SafeHtml | string {
  if (!value) return fallback;
  const shown =
    language && !Number.isNaN(Date.parse(value))
      ? coreMessages.in(language)('time.utc', { at: value })
      : `${value.replace('T', ' ').slice(0, 16)} UTC`;
  return html`<time datetime="${value}">${shown}</time>`;
}
