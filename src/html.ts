/**
 * Server-rendered HTML for pages and pipeline actions: the escaping `html` template and the page
 * layout Citadel's own pages use.
 * @packageDocumentation
 */
export { html, raw, escapeHtml, SafeHtml, type HtmlValue } from './core/html.ts';
export { layout, field, form, csrfField, type FieldOptions } from './http/html/layout.ts';
export type { PageContext, PageRenderer } from './http/response/respond.ts';
