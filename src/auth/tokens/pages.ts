import {
  html,
  csrfField,
  field,
  form,
  layout,
  when,
  type PageContext,
  type TokenRecord,
} from '../../plugin-api.ts';
import { tokensMessages } from './messages/index.ts';

/** What the token page lists: the signed-in user's tokens, and whether creating needs sudo first. */
export interface TokensPageProps {
  /** The signed-in user's tokens. */
  tokens: TokenRecord[];
  /** Creating asks for sudo first. */
  needsSudo: boolean;
}

/** The token page: the new token once (right after creation), the list with revoke, the create form. */
export function tokensPage(ctx: PageContext<TokensPageProps>) {
  const t = tokensMessages.in(ctx.language);
  const { tokens, needsSudo } = ctx.props;
  const created = ctx.outcome?.action === 'tokens.create' && ctx.outcome.status === 'success';
  const plain = created ? ctx.outcome?.fields?.token : undefined;
  return layout(
    ctx,
    t('page.title'),
    html`${
        typeof plain === 'string'
          ? html`<section class="flash success" id="new-token" role="status">
              <p><strong>${t('page.copyNow')}</strong> ${t('page.shownOnce')}</p>
              <p><code class="secret" id="new-token-value">${plain}</code></p>
              <button type="button" class="secondary" data-copy="new-token-value">${t('page.copy')}</button>
            </section>`
          : ''
      }
      <p>
        ${t('page.intro')}
        <code class="ability" dir="ltr">Authorization: Bearer &lt;token&gt;</code>
      </p>
      ${
        tokens.length === 0
          ? html`<p id="no-tokens">${t('page.none')}</p>`
          : html`<div class="table-wrap">
              <table id="token-list" class="stack">
                <thead>
                  <tr>
                    <th>${t('page.name')}</th>
                    <th>${t('page.abilities')}</th>
                    <th>${t('page.lastUsed')}</th>
                    <th>${t('page.expires')}</th>
                    <th><span class="visually-hidden">${t('page.actions')}</span></th>
                  </tr>
                </thead>
                <tbody>
                  ${tokens.map(
                    (token) =>
                      html`<tr data-token-id="${token.id}">
                        <td class="wrap"><strong>${token.name}</strong></td>
                        <td>${token.abilities.map((a) => html`<code class="ability">${a}</code> `)}</td>
                        <td>
                          ${token.last_used_at ? html`${t('page.lastUsed')} ${when(token.last_used_at, '', ctx.language)}` : t('page.neverUsed')}
                        </td>
                        <td>
                          ${token.expires_at ? html`${t('page.expires')} ${when(token.expires_at, '', ctx.language)}` : t('page.noExpiry')}
                        </td>
                        <td>
                          <form
                            method="post"
                            action="/tokens/revoke/${token.id}"
                            class="inline"
                            data-confirm="${t('page.revokeConfirm', { name: token.name })}"
                          >
                            ${csrfField(ctx)}<button type="submit" class="danger">${t('page.revoke')}</button>
                          </form>
                        </td>
                      </tr>`,
                  )}
                </tbody>
              </table>
            </div>`
      }
      <h2>${t('page.createTitle')}</h2>
      ${
        needsSudo
          ? html`<p id="sudo-notice" class="hint">
              ${t('page.sudoNotice')}
              <a href="/sudo?next=${encodeURIComponent('/tokens')}">${t('page.confirmNow')}</a>
            </p>`
          : ''
      }
      ${form(
        ctx,
        '/tokens/create',
        html`${field(ctx, { name: 'name', label: t('page.name'), required: true, hint: t('page.nameHint') })}
        ${field(ctx, { name: 'abilities', label: t('page.abilities'), hint: t('page.abilitiesHint') })}
        ${field(ctx, { name: 'expires_at', label: t('page.expiresOn'), type: 'date', hint: t('page.expiresHint') })}`,
        t('page.create'),
      )}`,
  );
}
