import { html } from '../../http/html.ts';
import { layout } from '../../http/layout.ts';
import type { PageContext } from '../../http/respond.ts';

export function homePage(ctx: PageContext) {
  const content = ctx.user
    ? html`<p>Signed in as <strong>${ctx.user.username}</strong> (${ctx.user.email}).</p>
        <ul>
          <li><a href="/two-factor">Two-factor settings</a></li>
          <li><a href="/tokens">Personal access tokens</a></li>
          <li><a href="/set-password">Password</a></li>
          <li><a href="/api/v1/docs/ui">API documentation</a></li>
        </ul>`
    : html`<p>Welcome. <a href="/login">Sign in</a> or <a href="/register">create an account</a>.</p>
        <p><a href="/api/v1/docs/ui">API documentation</a></p>`;
  return layout(ctx, 'Citadel', content);
}
