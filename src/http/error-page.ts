import { html } from './html.ts';
import { layout } from './layout.ts';
import type { PageContext } from './respond.ts';

const TITLES: Record<number, string> = {
  400: 'Bad request',
  401: 'Sign-in required',
  403: 'Not allowed',
  404: 'Not found',
  409: 'Conflict',
  413: 'Too large',
  422: 'Please check the form',
  429: 'Too many attempts',
};

export function errorPage(ctx: PageContext) {
  const status = ctx.outcome?.statusCode ?? 500;
  const title = TITLES[status] ?? 'Something went wrong';
  // A dead link (used or expired sign-in link) offers the way to a new one instead of a dead end.
  const next = ctx.outcome?.redirectTo;
  if (status === 404 && next === '/magic-link')
    return layout(
      ctx,
      'This sign-in link no longer works',
      html`<p>Sign-in links work once and only for a short time.</p>
        <p><a class="button" href="/magic-link">Email me a new link</a></p>
        ${ctx.serves('/login') ? html`<p><a href="/login">Sign in with a password instead</a></p>` : ''}`,
    );
  return layout(ctx, title, ctx.serves('/') ? html`<p><a href="/">Back to the start page</a></p>` : html``);
}
