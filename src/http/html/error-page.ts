import { html } from './html.ts';
import { layout } from './layout.ts';
import type { PageContext } from '../response/respond.ts';

const TITLES: Record<number, string> = {
  400: 'Bad request',
  401: 'Sign-in required',
  403: 'Not allowed',
  404: 'Not found',
  409: 'Conflict',
  413: 'Too large',
  422: 'Please check the form',
  429: 'Too many attempts',
  // Not "Something went wrong": the generic message under it says that already.
  500: 'Server error',
  503: 'Temporarily unavailable',
};

/** The message, unless it only repeats the page title ("Not found." under "Not found"). */
function beyondTitle(message: string | undefined, title: string): string {
  if (!message) return '';
  const lower = message.toLowerCase();
  const heading = title.toLowerCase();
  return lower === heading || lower === `${heading}.` ? '' : message;
}

export function errorPage(ctx: PageContext) {
  const status = ctx.outcome?.statusCode ?? 500;
  const title = TITLES[status] ?? 'Something went wrong';
  // The message is the page's own text here, not a banner above the title that repeats it.
  const frame = { ...ctx, outcome: undefined };
  // A dead link (used or expired sign-in link) offers the way to a new one instead of a dead end.
  const next = ctx.outcome?.redirectTo;
  if (status === 404 && next === '/magic-link')
    return layout(
      frame,
      'This sign-in link no longer works',
      html`<p>Sign-in links work once and only for a short time.</p>
        <p><a class="button" href="/magic-link">Email me a new link</a></p>
        ${ctx.serves('/login') ? html`<p><a href="/login">Sign in with a password instead</a></p>` : ''}`,
    );
  const message = beyondTitle(ctx.outcome?.message, title);
  return layout(
    frame,
    title,
    html`${message ? html`<p>${message}</p>` : ''}
    ${ctx.serves('/') ? html`<p><a href="/">Back to the start page</a></p>` : ''}`,
  );
}
