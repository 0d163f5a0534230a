import { html } from '../../http/html/html.ts';
import { csrfField, field, form, layout, when } from '../../http/html/layout.ts';
import type { PageContext } from '../../http/response/respond.ts';
import type { TokenRecord } from '../../http/security/caller.ts';

/** What the token page lists: the signed-in user's tokens, and whether creating needs sudo first. */
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
              <button type="button" class="secondary" data-copy="new-token-value">Copy token</button>
            </section>`
          : ''
      }
      <p>
        Tokens let scripts and API clients act as you: send one in the header
        <code class="ability">Authorization: Bearer &lt;token&gt;</code>.
      </p>
      ${
        tokens.length === 0
          ? html`<p id="no-tokens">You have no tokens.</p>`
          : html`<div class="table-wrap">
              <table id="token-list" class="stack">
                <thead>
                  <tr>
                    <th>Name</th>
                    <th>Abilities</th>
                    <th>Last used</th>
                    <th>Expires</th>
                    <th><span class="visually-hidden">Actions</span></th>
                  </tr>
                </thead>
                <tbody>
                  ${tokens.map(
                    (token) =>
                      html`<tr data-token-id="${token.id}">
                        <td class="wrap"><strong>${token.name}</strong></td>
                        <td>${token.abilities.map((a) => html`<code class="ability">${a}</code> `)}</td>
                        <td>Last used ${when(token.last_used_at, 'never')}</td>
                        <td>Expires ${when(token.expires_at, 'never')}</td>
                        <td>
                          <form
                            method="post"
                            action="/tokens/revoke/${token.id}"
                            class="inline"
                            data-confirm="Revoke the token ${token.name}? Anything using it stops working."
                          >
                            ${csrfField(ctx)}<button type="submit" class="danger">Revoke</button>
                          </form>
                        </td>
                      </tr>`,
                  )}
                </tbody>
              </table>
            </div>`
      }
      <h2>Create a token</h2>
      ${
        needsSudo
          ? html`<p id="sudo-notice" class="hint">
              Creating a token needs a recent confirmation of your identity. You will be asked for it when you
              submit, then brought back here with what you typed (<a
                href="/sudo?next=${encodeURIComponent('/tokens')}"
                >confirm now</a
              >).
            </p>`
          : ''
      }
      ${form(
        ctx,
        '/tokens/create',
        html`${field(ctx, { name: 'name', label: 'Name', required: true, hint: 'What the token is for, e.g. "CI deploy".' })}
        ${field(ctx, { name: 'abilities', label: 'Abilities', hint: 'Separated by commas or spaces, e.g. posts:read, posts:create. Leave empty for every ability (*).' })}
        ${field(ctx, { name: 'expires_at', label: 'Expires on (optional)', type: 'date', hint: 'The token stops working at the start of that day (00:00 UTC).' })}`,
        'Create token',
      )}`,
  );
}
