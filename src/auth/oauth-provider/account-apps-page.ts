import { html, type SafeHtml, csrfField, layout, when, type PageContext } from '../../plugin-api.ts';
import { oauthProviderMessages } from './messages/index.ts';

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

type Texts = ReturnType<typeof oauthProviderMessages.in>;

function appRow(ctx: PageContext, t: Texts, app: ConnectedApp): SafeHtml {
  return html`<li class="card" data-client-id="${app.client_id}">
    <h2 style="margin:.25rem 0">
      ${app.client_name}${app.verified ? '' : html`<span class="badge">${t('apps.notVerified')}</span>`}
    </h2>
    <dl class="facts">
      <dt>${t('apps.returnsTo')}</dt>
      <dd class="wrap">${app.redirect_host}</dd>
      <dt>${t('apps.can')}</dt>
      <dd>${app.scope.split(' ').map((scope) => html`<code class="ability">${scope}</code> `)}</dd>
      <dt>${t('apps.since')}</dt>
      <dd>${when(app.consented_at, '', ctx.language)}</dd>
    </dl>
    <form
      method="post"
      action="/account/apps/${app.client_id}/withdraw"
      class="inline"
      data-confirm="${t('apps.withdrawQuestion', { name: app.client_name })}"
    >
      ${csrfField(ctx)}<button type="submit" class="danger">${t('apps.withdraw')}</button>
    </form>
  </li>`;
}

/** /account/apps: each app with what it may do and a button to withdraw its access. */
export function accountAppsPage(ctx: PageContext<{ apps: ConnectedApp[] }>): SafeHtml {
  const apps = ctx.props.apps ?? [];
  const t = oauthProviderMessages.in(ctx.language);
  return layout(
    ctx,
    t('apps.title'),
    html`<p>${t('apps.intro')}</p>
      ${
        apps.length === 0
          ? html`<p id="no-apps">${t('apps.none')}</p>`
          : html`<ul class="plain" id="app-list">
              ${apps.map((app) => appRow(ctx, t, app))}
            </ul>`
      }
      <p><a href="/account">${t('apps.back')}</a></p>`,
  );
}
