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
  return layout(ctx, title, html`<p><a href="/">Back to the start page</a></p>`);
}
