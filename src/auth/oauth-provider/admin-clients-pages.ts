import {
  html,
  type SafeHtml,
  csrfField,
  field,
  form,
  layout,
  when,
  type PageContext,
} from '../../plugin-api.ts';
import type { ClientMetadataView } from './client-schema.ts';
import { oauthProviderMessages } from './messages/index.ts';

/** What the admin pages of OAuth clients show; `clients` and `client` are null for non-admins. */
export interface AdminClientsPageProps {
  clients: ClientMetadataView[] | null;
  client: ClientMetadataView | null;
  /** Every scope a client may be allowed, for the registration form. */
  scopes: string[];
}

type Texts = ReturnType<typeof oauthProviderMessages.in>;

function kind(t: Texts, client: ClientMetadataView): string {
  const type = client.token_endpoint_auth_method === 'none' ? t('admin.public') : t('admin.confidential');
  return client.application_type === 'native' ? t('admin.kindNative', { type }) : type;
}

function status(t: Texts, client: ClientMetadataView): SafeHtml {
  return client.disabled_at
    ? html`<span class="badge">${t('admin.disabled')}</span>`
    : html`<span class="badge muted">${t('admin.active')}</span>`;
}

function notAllowed(ctx: PageContext, title: string): SafeHtml {
  return layout(ctx, title, html`<p>${oauthProviderMessages.in(ctx.language)('admin.notAllowed')}</p>`);
}

/** The secret a create or rotate answer carries, shown once. */
function newSecret(ctx: PageContext): SafeHtml | '' {
  const data = ctx.outcome?.status === 'success' ? ctx.outcome.data : undefined;
  const secret = data?.client_secret;
  if (typeof secret !== 'string') return '';
  const clientId = typeof data?.client_id === 'string' ? data.client_id : '';
  const t = oauthProviderMessages.in(ctx.language);
  return html`<section class="flash success" id="new-secret" role="status">
    <p><strong>${t('admin.newSecret')}</strong> ${t('admin.newSecretHint')}</p>
    <dl class="facts">
      <dt>${t('admin.clientId')}</dt>
      <dd><code class="secret" id="new-client-id">${clientId}</code></dd>
      <dt>${t('admin.clientSecret')}</dt>
      <dd><code class="secret" id="new-secret-value">${secret}</code></dd>
    </dl>
    <button type="button" class="secondary" data-copy="new-secret-value">${t('admin.copySecret')}</button>
  </section>`;
}

function textarea(ctx: PageContext, name: string, label: string, hint: string, required: boolean): SafeHtml {
  const id = `field-${name}`;
  const error = ctx.errors[name];
  return html`<label for="${id}">${label}</label>
    <div class="hint" id="${id}-hint">${hint}</div>
    <textarea
      id="${id}"
      name="${name}"
      rows="3"
      style="width:100%;max-width:28rem;font:inherit"
      aria-describedby="${id}-hint${error ? html` ${id}-error` : ''}"
      ${required ? 'required' : ''}
      ${error ? html`aria-invalid="true"` : ''}
    >
${ctx.input[name] ?? ''}</textarea>
    ${error ? html`<div class="field-error" id="${id}-error">${error}</div>` : ''}`;
}

function select(
  ctx: PageContext,
  name: string,
  label: string,
  options: readonly [string, string][],
): SafeHtml {
  const chosen = ctx.input[name] ?? options[0]![0];
  const error = ctx.errors[name];
  return html`<label for="field-${name}">${label}</label>
    <select id="field-${name}" name="${name}">
      ${options.map(
        ([value, text]) =>
          html`<option value="${value}" ${value === chosen ? 'selected' : ''}>${text}</option>`,
      )}
    </select>
    ${error ? html`<div class="field-error">${error}</div>` : ''}`;
}

/**
 * The allowed scopes: one text field (a form re-filled after the sudo page keeps text fields, not
 * checkbox lists), with every supported scope listed under it.
 */
function scopeField(ctx: PageContext, scopes: readonly string[]): SafeHtml {
  const id = 'field-scope';
  const error = ctx.errors.scope;
  const t = oauthProviderMessages.in(ctx.language);
  return html`<label for="${id}">${t('admin.allowedScopes')}</label>
    <div class="hint" id="${id}-hint">
      ${t('admin.scopesHint')} ${scopes.map((scope) => html`<code class="ability">${scope}</code> `)}
    </div>
    <input
      id="${id}"
      name="scope"
      type="text"
      value="${ctx.input.scope ?? 'openid profile email'}"
      autocomplete="off"
      required
      aria-describedby="${id}-hint${error ? html` ${id}-error` : ''}"
      ${error ? html`aria-invalid="true"` : ''}
    />
    ${error ? html`<div class="field-error" id="${id}-error">${error}</div>` : ''}`;
}

/** /admin/oauth/clients: the clients, a new client's secret once, the registration form. */
export function adminClientsPage(ctx: PageContext<AdminClientsPageProps>): SafeHtml {
  const t = oauthProviderMessages.in(ctx.language);
  const { clients, scopes } = ctx.props;
  if (!clients) return notAllowed(ctx, t('admin.listTitle'));
  return layout(
    ctx,
    t('admin.listTitle'),
    html`<p><a href="/admin/users">${t('admin.users')}</a></p>
      ${newSecret(ctx)}
      <p>${t('admin.intro')}</p>
      ${
        clients.length === 0
          ? html`<p id="no-clients">${t('admin.none')}</p>`
          : html`<div class="table-wrap">
              <table id="client-list" class="stack">
                <thead>
                  <tr>
                    <th>${t('admin.client')}</th>
                    <th>${t('admin.type')}</th>
                    <th>${t('admin.status')}</th>
                    <th>${t('admin.registered')}</th>
                  </tr>
                </thead>
                <tbody>
                  ${clients.map(
                    (client) =>
                      html`<tr data-client-id="${client.client_id}">
                        <td class="wrap">
                          <a href="/admin/oauth/clients/${client.client_id}">${client.client_name}</a>
                          ${client.registration === 'dynamic' ? html`<span class="badge">${t('admin.notVerified')}</span>` : ''}
                          <div class="hint"><code class="secret">${client.client_id}</code></div>
                        </td>
                        <td data-label="${t('admin.type')}">${kind(t, client)}</td>
                        <td data-label="${t('admin.status')}">${status(t, client)}</td>
                        <td data-label="${t('admin.registered')}">
                          ${when(client.created_at, '', ctx.language)}
                        </td>
                      </tr>`,
                  )}
                </tbody>
              </table>
            </div>`
      }
      <section class="card" aria-labelledby="register-heading">
        <h2 id="register-heading">${t('admin.register')}</h2>
        ${form(
          ctx,
          '/admin/oauth/clients',
          html`${field(ctx, { name: 'client_name', label: t('admin.name'), required: true, hint: t('admin.nameHint') })}
          ${textarea(ctx, 'redirect_uris', t('admin.redirectUris'), t('admin.redirectUrisHint'), true)}
          ${textarea(ctx, 'post_logout_redirect_uris', t('admin.logoutUris'), t('admin.onePerLine'), false)}
          ${select(ctx, 'token_endpoint_auth_method', t('admin.clientType'), [
            ['client_secret_basic', t('admin.basic')],
            ['client_secret_post', t('admin.post')],
            ['none', t('admin.noSecret')],
          ])}
          ${select(ctx, 'application_type', t('admin.application'), [
            ['web', t('admin.web')],
            ['native', t('admin.nativeApp')],
          ])}
          ${scopeField(ctx, scopes)}`,
          t('admin.registerSubmit'),
        )}
      </section>`,
  );
}

/** /admin/oauth/clients/{client_id}: the client's registration and its actions. */
export function adminClientPage(ctx: PageContext<AdminClientsPageProps>): SafeHtml {
  const t = oauthProviderMessages.in(ctx.language);
  const { client } = ctx.props;
  if (!client) return notAllowed(ctx, t('admin.clientTitle'));
  const base = `/admin/oauth/clients/${client.client_id}`;
  const confidential = client.token_endpoint_auth_method !== 'none';
  return layout(
    ctx,
    client.client_name,
    html`<p><a href="/admin/oauth/clients">${t('admin.allClients')}</a></p>
      ${newSecret(ctx)}
      ${client.registration === 'dynamic' ? html`<p class="flash info">${t('admin.unverified')}</p>` : ''}
      <dl class="facts" id="client-facts">
        <dt>${t('admin.clientId')}</dt>
        <dd><code class="secret">${client.client_id}</code></dd>
        <dt>${t('admin.type')}</dt>
        <dd>${kind(t, client)} (<code>${client.token_endpoint_auth_method}</code>)</dd>
        <dt>${t('admin.status')}</dt>
        <dd>${status(t, client)}</dd>
        <dt>${t('admin.redirectUris')}</dt>
        <dd>${client.redirect_uris.map((uri) => html`<div><code class="secret">${uri}</code></div>`)}</dd>
        ${
          client.post_logout_redirect_uris.length > 0
            ? html`<dt>${t('admin.logoutUrisShort')}</dt>
                <dd>
                  ${client.post_logout_redirect_uris.map((uri) => html`<div><code class="secret">${uri}</code></div>`)}
                </dd>`
            : ''
        }
        <dt>${t('admin.scopes')}</dt>
        <dd>${client.scope.split(' ').map((scope) => html`<code class="ability">${scope}</code> `)}</dd>
        <dt>${t('admin.idToken')}</dt>
        <dd>${client.id_token_signed_response_alg}</dd>
        <dt>${t('admin.registered')}</dt>
        <dd>${when(client.created_at, '', ctx.language)}</dd>
        ${
          confidential
            ? html`<dt>${t('admin.secretRotated')}</dt>
                <dd>${when(client.secret_rotated_at, t('admin.never'), ctx.language)}</dd>`
            : ''
        }
      </dl>
      ${
        confidential
          ? html`<section class="card" aria-labelledby="rotate-heading">
              <h2 id="rotate-heading">${t('admin.rotateTitle')}</h2>
              <p>${t('admin.rotateIntro')}</p>
              ${form(ctx, `${base}/secret`, '', t('admin.rotate'), '', 'secondary')}
            </section>`
          : ''
      }
      ${
        client.disabled_at
          ? html`<section class="card" aria-labelledby="enable-heading">
              <h2 id="enable-heading">${t('admin.enableTitle')}</h2>
              <p>${t('admin.enableIntro', { at: String(when(client.disabled_at, '', ctx.language)) })}</p>
              ${form(ctx, `${base}/enable`, '', t('admin.enable'))}
            </section>`
          : html`<section class="card danger-zone" aria-labelledby="disable-heading">
              <h2 id="disable-heading">${t('admin.disableTitle')}</h2>
              <p>${t('admin.disableIntro')}</p>
              ${form(ctx, `${base}/disable`, '', t('admin.disable'), '', 'danger')}
            </section>`
      }
      <section class="card danger-zone" aria-labelledby="delete-heading">
        <h2 id="delete-heading">${t('admin.deleteTitle')}</h2>
        <p>${t('admin.deleteIntro')}</p>
        <form
          method="post"
          action="${base}/delete"
          class="inline"
          data-confirm="${t('admin.deleteQuestion', { name: client.client_name })}"
        >
          ${csrfField(ctx)}<button type="submit" class="danger">${t('admin.delete')}</button>
        </form>
      </section>`,
  );
}
