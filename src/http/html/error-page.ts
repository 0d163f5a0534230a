import { html } from '../../core/html.ts';
import { layout } from './layout.ts';
import type { PageContext } from '../response/respond.ts';
import { coreMessages } from '../../core/i18n/messages/index.ts';

/** Statuses with a title of their own; any other is "Something went wrong". */
const TITLED = new Set([400, 401, 403, 404, 409, 413, 422, 429, 500, 503] as const);
type TitledStatus = typeof TITLED extends Set<infer S> ? S : never;
const isTitled = (status: number): status is TitledStatus => TITLED.has(status as TitledStatus);

/** The message, unless it only repeats the page title ("Not found." under "Not found"). */
function beyondTitle(message: string | undefined, title: string): string {
  if (!message) return '';
  const lower = message.toLowerCase();
  const heading = title.toLowerCase();
  return lower === heading || lower === `${heading}.` ? '' : message;
}

export function errorPage(ctx: PageContext) {
  const t = coreMessages.in(ctx.language);
  const status = ctx.outcome?.statusCode ?? 500;
  // 500 is not "Something went wrong": the generic message under it says that already.
  const title = isTitled(status) ? t(`errorPage.${status}`) : t('errorPage.other');
  // The message is the page's own text here, not a banner above the title that repeats it.
  const frame = { ...ctx, outcome: undefined };
  // A dead link (used or expired sign-in link) offers the way to a new one instead of a dead end.
  const next = ctx.outcome?.redirectTo;
  if (status === 404 && next === '/magic-link')
    return layout(
      frame,
      t('errorPage.deadLinkTitle'),
      html`<p>${t('errorPage.deadLinkText')}</p>
        <p><a class="button" href="/magic-link">${t('errorPage.newLink')}</a></p>
        ${ctx.serves('/login') ? html`<p><a href="/login">${t('errorPage.passwordInstead')}</a></p>` : ''}`,
    );
  const message = beyondTitle(ctx.outcome?.message, title);
  return layout(
    frame,
    title,
    html`${message ? html`<p>${message}</p>` : ''}
    ${ctx.serves('/') ? html`<p><a href="/">${t('errorPage.home')}</a></p>` : ''}`,
  );
}
