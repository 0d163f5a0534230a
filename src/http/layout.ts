import { html, type HtmlValue, type SafeHtml } from './html.ts';
import type { PageContext } from './respond.ts';

const STYLE = `
body{font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;color:#1d2330;line-height:1.5}
nav{display:flex;gap:1rem;align-items:center;border-bottom:1px solid #d8dde6;padding-bottom:.5rem;margin-bottom:1.5rem}
nav .brand{font-weight:700;margin-right:auto;text-decoration:none;color:inherit}
label{display:block;margin:.75rem 0 .25rem;font-weight:600}
input[type=text],input[type=email],input[type=password],input[type=datetime-local],select{width:100%;padding:.5rem;box-sizing:border-box;border:1px solid #b8c0cc;border-radius:4px}
button{margin-top:1rem;padding:.5rem 1rem;border:0;border-radius:4px;background:#2952cc;color:#fff;cursor:pointer}
button.secondary{background:#5b6577}
.flash{padding:.75rem;border-radius:4px;margin-bottom:1rem}
.flash.success{background:#e3f6e8}.flash.info{background:#e6eefc}.flash.error{background:#fde8e8}
.field-error{color:#b42318;font-size:.9em}
code,.secret{font-family:ui-monospace,monospace;background:#f2f4f7;padding:.1rem .3rem;border-radius:3px;word-break:break-all}
table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:.35rem;border-bottom:1px solid #e4e7ec}
.inline{display:inline}
`;

/** The page frame: navigation, the one-time flash message, then the content. */
export function layout(ctx: PageContext, title: string, content: HtmlValue, head: HtmlValue = ''): SafeHtml {
  const nav = ctx.user
    ? html`<a href="/two-factor">Two-factor</a> <a href="/tokens">Tokens</a>
        <form class="inline" method="post" action="/logout">
          <input type="hidden" name="_csrf" value="${ctx.csrf}" /><button
            class="secondary"
            style="margin:0"
            type="submit"
          >
            Sign out
          </button>
        </form>`
    : html`<a href="/login">Sign in</a> <a href="/register">Register</a>`;
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} · Citadel</title>
        <style>
          ${STYLE}
        </style>
        ${head}
      </head>
      <body>
        <nav><a class="brand" href="/">Citadel</a>${nav}</nav>
        ${ctx.flash ? html`<div class="flash ${ctx.flash.type}" role="status">${ctx.flash.message}</div>` : ''}
        ${
          ctx.outcome?.status === 'error' && ctx.outcome.message && !ctx.flash
            ? html`<div class="flash error" role="alert">${ctx.outcome.message}</div>`
            : ''
        }
        <main>
          <h1>${title}</h1>
          ${content}
        </main>
      </body>
    </html>`;
}

export interface FieldOptions {
  name: string;
  label: string;
  type?: 'text' | 'email' | 'password' | 'datetime-local' | 'hidden';
  autocomplete?: string;
  required?: boolean;
  inputmode?: string;
  value?: string;
}

/** A labelled input, re-filled from the submitted input and followed by its error, if any. */
export function field(ctx: PageContext, options: FieldOptions): SafeHtml {
  const value = options.value ?? (options.type === 'password' ? '' : (ctx.input[options.name] ?? ''));
  const error = ctx.errors[options.name];
  const id = `field-${options.name}`;
  return html`<label for="${id}">${options.label}</label>
    <input
      id="${id}"
      name="${options.name}"
      type="${options.type ?? 'text'}"
      value="${value}"
      ${options.autocomplete ? html`autocomplete="${options.autocomplete}"` : ''}
      ${options.inputmode ? html`inputmode="${options.inputmode}"` : ''}
      ${options.required ? 'required' : ''}
      ${error ? html`aria-invalid="true" aria-describedby="${id}-error"` : ''}
    />
    ${error ? html`<div class="field-error" id="${id}-error">${error}</div>` : ''}`;
}

export function csrfField(ctx: PageContext): SafeHtml {
  return html`<input type="hidden" name="_csrf" value="${ctx.csrf}" />`;
}

/** A form posting to `action` with the CSRF field. */
export function form(
  ctx: PageContext,
  action: string,
  content: HtmlValue,
  submit: string,
  attrs: HtmlValue = '',
): SafeHtml {
  return html`<form method="post" action="${action}" ${attrs}>
    ${csrfField(ctx)}${content}<button type="submit">${submit}</button>
  </form>`;
}
