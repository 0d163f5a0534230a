import { html } from '../../http/html.ts';
import { field, form, layout } from '../../http/layout.ts';
import type { PageContext } from '../../http/respond.ts';
import type { TokenRecord } from '../../http/caller.ts';

function when(value: string | null, fallback: string) {
  return value
    ? html`<time datetime="${value}">${value.replace('T', ' ').slice(0, 16)} UTC</time>`
    : fallback;
}

export interface TokensPageProps {
  /** The signed-in user's tokens. */
  tokens: TokenRecord[];
  /** Creating asks for sudo first. */
  needsSudo: boolean;
}

/** The token page: the new token once (right after creation), the list with revoke, the create form. */
export function tokensPage(ctx: PageContext<TokensPageProps>) {
  const { tokens, needsSudo } = ctx.props;
  const created = ctx.outcome?.action === 'tokens.create' && ctx.outcome.status === 'success';
  const plain = created ? ctx.outcome?.fields?.token : undefined;
  return layout(
    ctx,
    'Personal access tokens',
    html`${
        typeof plain === 'string'
          ? html`<section class="flash success" id="new-token" role="status">
              <p><strong>Copy your new token now.</strong> It will not be shown again.</p>
              <p><code class="secret" id="new-token-value">${plain}</code></p>
            </section>`
          : ''
      }
      <p>
        Tokens let scripts and API clients act as you: send one as
        <code>Authorization: Bearer &lt;token&gt;</code>.
      </p>
      ${
        tokens.length === 0
          ? html`<p id="no-tokens">You have no tokens.</p>`
          : html`<table id="token-list">
              <thead>
                <tr>
                  <th>Name</th>
                  <th>Abilities</th>
                  <th>Last used</th>
                  <th>Expires</th>
                  <th></th>
                </tr>
              </thead>
              <tbody>
                ${tokens.map(
                  (token) =>
                    html`<tr data-token-id="${token.id}">
                      <td>${token.name}</td>
                      <td>${token.abilities.map((a) => html`<code>${a}</code> `)}</td>
                      <td>${when(token.last_used_at, 'never')}</td>
                      <td>${when(token.expires_at, 'never')}</td>
                      <td>${form(ctx, `/tokens/revoke/${token.id}`, '', 'Revoke', html`class="inline"`)}</td>
                    </tr>`,
                )}
              </tbody>
            </table>`
      }
      <h2>Create a token</h2>
      ${
        needsSudo
          ? html`<p id="sudo-notice">
              Creating a token needs a recent confirmation of your identity:
              <a href="/sudo?next=${encodeURIComponent('/tokens')}">confirm it first</a>.
            </p>`
          : ''
      }
      ${form(
        ctx,
        '/tokens/create',
        html`${field(ctx, { name: 'name', label: 'Name', required: true })}
        ${field(ctx, { name: 'abilities', label: 'Abilities (comma-separated; empty means "*")' })}
        ${field(ctx, { name: 'expires_at', label: 'Expires (UTC, optional)', type: 'datetime-local' })}`,
        'Create token',
      )}`,
  );
}
