import { html, type SafeHtml } from '../../http/html/html.ts';
import { csrfField, layout, when } from '../../http/html/layout.ts';
import type { PageContext } from '../../http/response/respond.ts';

/** An app the user let sign them in, as the account page lists it. */
export interface ConnectedApp {
  client_id: string;
  client_name: string;
  /** Registered by an administrator (true) or by the app itself (false). */
  verified: boolean;
  redirect_host: string;
  scope: string;
  consented_at: string;
  updated_at: string;
}

const TEXT = {
  title: 'Connected apps',
  intro:
    'Apps you let sign you in with this account or act for you. Withdrawing access signs you out of the app and ends every token it holds for you.',
  none: 'No app has access to your account.',
  notVerified: 'Not verified',
  withdraw: 'Withdraw access',
  back: 'Back to your account',
} as const;

function appRow(ctx: PageContext, app: ConnectedApp): SafeHtml {
  return html`<li class="card" data-client-id="${app.client_id}">
    <h2 style="margin:.25rem 0">
      ${app.client_name}${app.verified ? '' : html`<span class="badge">${TEXT.notVerified}</span>`}
    </h2>
    <dl class="facts">
      <dt>Returns you to</dt>
      <dd class="wrap">${app.redirect_host}</dd>
      <dt>Can</dt>
      <dd>${app.scope.split(' ').map((scope) => html`<code class="ability">${scope}</code> `)}</dd>
      <dt>Since</dt>
      <dd>${when(app.consented_at, '')}</dd>
    </dl>
    <form
      method="post"
      action="/account/apps/${app.client_id}/withdraw"
      class="inline"
      data-confirm="Withdraw ${app.client_name}'s access to your account?"
    >
      ${csrfField(ctx)}<button type="submit" class="danger">${TEXT.withdraw}</button>
    </form>
  </li>`;
}

/** /account/apps: each app with what it may do and a button to withdraw its access. */
export function accountAppsPage(ctx: PageContext<{ apps: ConnectedApp[] }>): SafeHtml {
  const apps = ctx.props.apps ?? [];
  return layout(
    ctx,
    TEXT.title,
    html`<p>${TEXT.intro}</p>
      ${
        apps.length === 0
          ? html`<p id="no-apps">${TEXT.none}</p>`
          : html`<ul class="plain" id="app-list">
              ${apps.map((app) => appRow(ctx, app))}
            </ul>`
      }
      <p><a href="/account">${TEXT.back}</a></p>`,
  );
}
