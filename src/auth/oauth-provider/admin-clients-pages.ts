import { html, type SafeHtml } from '../../core/html.ts';
import { csrfField, field, form, layout, when } from '../../http/html/layout.ts';
import type { PageContext } from '../../http/response/respond.ts';
import type { ClientMetadataView } from './client-schema.ts';

/** What the admin pages of OAuth clients show; `clients` and `client` are null for non-admins. */
export interface AdminClientsPageProps {
  clients: ClientMetadataView[] | null;
  client: ClientMetadataView | null;
  /** Every scope a client may be allowed, for the registration form. */
  scopes: string[];
}

const TEXT = {
  listTitle: 'OAuth clients',
  notAllowed: 'This page is for administrators.',
  intro:
    'Applications that sign their users in with this server (OpenID Connect) or act on its API for them (OAuth 2.1).',
  none: 'No client is registered.',
  newSecret: 'Copy the client secret now.',
  newSecretHint: 'It is stored hashed and will not be shown again; rotate it if it is lost.',
  register: 'Register a client',
  unverified: 'Registered by the client itself: users see it as not verified.',
} as const;

function kind(client: ClientMetadataView): string {
  const type = client.token_endpoint_auth_method === 'none' ? 'Public' : 'Confidential';
  return client.application_type === 'native' ? `${type}, native` : type;
}

function status(client: ClientMetadataView): SafeHtml {
  return client.disabled_at
    ? html`<span class="badge">Disabled</span>`
    : html`<span class="badge muted">Active</span>`;
}

function notAllowed(ctx: PageContext, title: string): SafeHtml {
  return layout(ctx, title, html`<p>${TEXT.notAllowed}</p>`);
}

/** The secret a create or rotate answer carries, shown once. */
function newSecret(ctx: PageContext): SafeHtml | '' {
  const data = ctx.outcome?.status === 'success' ? ctx.outcome.data : undefined;
  const secret = data?.client_secret;
  if (typeof secret !== 'string') return '';
  const clientId = typeof data?.client_id === 'string' ? data.client_id : '';
  return html`<section class="flash success" id="new-secret" role="status">
    <p><strong>${TEXT.newSecret}</strong> ${TEXT.newSecretHint}</p>
    <dl class="facts">
      <dt>Client ID</dt>
      <dd><code class="secret" id="new-client-id">${clientId}</code></dd>
      <dt>Client secret</dt>
      <dd><code class="secret" id="new-secret-value">${secret}</code></dd>
    </dl>
    <button type="button" class="secondary" data-copy="new-secret-value">Copy secret</button>
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
  return html`<label for="${id}">Allowed scopes</label>
    <div class="hint" id="${id}-hint">
      Separated by spaces: what the client may ask users for (each user still consents). Supported:
      ${scopes.map((scope) => html`<code class="ability">${scope}</code> `)}
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
  const { clients, scopes } = ctx.props;
  if (!clients) return notAllowed(ctx, TEXT.listTitle);
  return layout(
    ctx,
    TEXT.listTitle,
    html`<p><a href="/admin/users">Users</a></p>
      ${newSecret(ctx)}
      <p>${TEXT.intro}</p>
      ${
        clients.length === 0
          ? html`<p id="no-clients">${TEXT.none}</p>`
          : html`<div class="table-wrap">
              <table id="client-list" class="stack">
                <thead>
                  <tr>
                    <th>Client</th>
                    <th>Type</th>
                    <th>Status</th>
                    <th>Registered</th>
                  </tr>
                </thead>
                <tbody>
                  ${clients.map(
                    (client) =>
                      html`<tr data-client-id="${client.client_id}">
                        <td class="wrap">
                          <a href="/admin/oauth/clients/${client.client_id}">${client.client_name}</a>
                          ${client.registration === 'dynamic' ? html`<span class="badge">Not verified</span>` : ''}
                          <div class="hint"><code class="secret">${client.client_id}</code></div>
                        </td>
                        <td data-label="Type">${kind(client)}</td>
                        <td data-label="Status">${status(client)}</td>
                        <td data-label="Registered">${when(client.created_at, '')}</td>
                      </tr>`,
                  )}
                </tbody>
              </table>
            </div>`
      }
      <section class="card" aria-labelledby="register-heading">
        <h2 id="register-heading">${TEXT.register}</h2>
        ${form(
          ctx,
          '/admin/oauth/clients',
          html`${field(ctx, { name: 'client_name', label: 'Name', required: true, hint: 'Shown to users on the consent page.' })}
          ${textarea(ctx, 'redirect_uris', 'Redirect URIs', 'One per line. https; a native app may use http://127.0.0.1 (any port).', true)}
          ${textarea(ctx, 'post_logout_redirect_uris', 'Post-logout redirect URIs (optional)', 'One per line.', false)}
          ${select(ctx, 'token_endpoint_auth_method', 'Client type', [
            ['client_secret_basic', 'Confidential, secret in HTTP Basic'],
            ['client_secret_post', 'Confidential, secret in the body'],
            ['none', 'Public, no secret (app, SPA, CLI)'],
          ])}
          ${select(ctx, 'application_type', 'Application', [
            ['web', 'Web application'],
            ['native', 'Native app (loopback, app scheme)'],
          ])}
          ${scopeField(ctx, scopes)}`,
          'Register client',
        )}
      </section>`,
  );
}

/** /admin/oauth/clients/{client_id}: the client's registration and its actions. */
export function adminClientPage(ctx: PageContext<AdminClientsPageProps>): SafeHtml {
  const { client } = ctx.props;
  if (!client) return notAllowed(ctx, 'OAuth client');
  const base = `/admin/oauth/clients/${client.client_id}`;
  const confidential = client.token_endpoint_auth_method !== 'none';
  return layout(
    ctx,
    client.client_name,
    html`<p><a href="/admin/oauth/clients">All clients</a></p>
      ${newSecret(ctx)}
      ${client.registration === 'dynamic' ? html`<p class="flash info">${TEXT.unverified}</p>` : ''}
      <dl class="facts" id="client-facts">
        <dt>Client ID</dt>
        <dd><code class="secret">${client.client_id}</code></dd>
        <dt>Type</dt>
        <dd>${kind(client)} (<code>${client.token_endpoint_auth_method}</code>)</dd>
        <dt>Status</dt>
        <dd>${status(client)}</dd>
        <dt>Redirect URIs</dt>
        <dd>${client.redirect_uris.map((uri) => html`<div><code class="secret">${uri}</code></div>`)}</dd>
        ${
          client.post_logout_redirect_uris.length > 0
            ? html`<dt>Post-logout URIs</dt>
                <dd>
                  ${client.post_logout_redirect_uris.map((uri) => html`<div><code class="secret">${uri}</code></div>`)}
                </dd>`
            : ''
        }
        <dt>Scopes</dt>
        <dd>${client.scope.split(' ').map((scope) => html`<code class="ability">${scope}</code> `)}</dd>
        <dt>ID token</dt>
        <dd>${client.id_token_signed_response_alg}</dd>
        <dt>Registered</dt>
        <dd>${when(client.created_at, '')}</dd>
        ${
          confidential
            ? html`<dt>Secret rotated</dt>
                <dd>${when(client.secret_rotated_at, 'never')}</dd>`
            : ''
        }
      </dl>
      ${
        confidential
          ? html`<section class="card" aria-labelledby="rotate-heading">
              <h2 id="rotate-heading">Rotate the secret</h2>
              <p>A new secret is shown once; the current one stops working at once.</p>
              ${form(ctx, `${base}/secret`, '', 'Rotate secret', '', 'secondary')}
            </section>`
          : ''
      }
      ${
        client.disabled_at
          ? html`<section class="card" aria-labelledby="enable-heading">
              <h2 id="enable-heading">Enable</h2>
              <p>Disabled ${when(client.disabled_at, '')}. Users may sign in to it again.</p>
              ${form(ctx, `${base}/enable`, '', 'Enable client')}
            </section>`
          : html`<section class="card danger-zone" aria-labelledby="disable-heading">
              <h2 id="disable-heading">Disable</h2>
              <p>No one can sign in to it or get a token for it, and the tokens it holds stop working.</p>
              ${form(ctx, `${base}/disable`, '', 'Disable client', '', 'danger')}
            </section>`
      }
      <section class="card danger-zone" aria-labelledby="delete-heading">
        <h2 id="delete-heading">Delete</h2>
        <p>
          Removes the client and the consents users gave it; its tokens stop working. It cannot be undone.
        </p>
        <form
          method="post"
          action="${base}/delete"
          class="inline"
          data-confirm="Delete ${client.client_name}? Its users are signed out of it for good."
        >
          ${csrfField(ctx)}<button type="submit" class="danger">Delete client</button>
        </form>
      </section>`,
  );
}
