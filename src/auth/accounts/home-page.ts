import { html } from '../../http/html/html.ts';
import { layout, servedLinks } from '../../http/html/layout.ts';
import type { PageContext } from '../../http/response/respond.ts';

const API_DOCS = '/api/v1/docs/ui';
const LINKS: readonly (readonly [string, string])[] = [
  ['/account', 'Your account'],
  ['/sessions', 'Sessions and devices'],
  ['/two-factor', 'Two-factor settings'],
  ['/tokens', 'Personal access tokens'],
  ['/set-password', 'Password'],
  [API_DOCS, 'API documentation'],
];

export function homePage(ctx: PageContext) {
  const content = ctx.user
    ? html`<p>Signed in as <strong>${ctx.user.username}</strong> (${ctx.user.email}).</p>
        <ul>
          ${LINKS.filter(([path]) => ctx.serves(path)).map(([path, label]) => html`<li><a href="${path}">${label}</a></li>`)}
        </ul>`
    : html`<p>
          Welcome.
          ${servedLinks(
            ctx,
            [
              ['/login', 'Sign in'],
              ['/register', 'Create an account'],
            ],
            ' or ',
          )}.
        </p>
        ${ctx.serves(API_DOCS) ? html`<p><a href="${API_DOCS}">API documentation</a></p>` : ''}`;
  return layout(ctx, ctx.appName, content);
}
