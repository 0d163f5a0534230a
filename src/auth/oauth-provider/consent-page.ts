import { html, csrfField, layout, type PageContext } from '../../plugin-api.ts';
import { oauthProviderMessages } from './messages/index.ts';

/** Why an authorization request cannot go on (a key of the `consent.reason.*` messages). */
export type AuthorizeRefusal = 'unknownClient' | 'badRedirect' | 'noClient' | 'noPending' | 'noAnswer';

/** What the authorize pages show: a consent question, or why the request cannot go on. */
export type AuthorizePageData = {
  /** `consent`: ask; `error`: the request cannot be trusted (unknown client or redirect URI). */
  view?: 'consent' | 'error';
  client_name?: string;
  /** Registered by anyone (dynamic registration): shown as not verified, with its redirect host. */
  unverified?: boolean;
  redirect_host?: string;
  scopes?: string[];
  reason?: AuthorizeRefusal;
};

type Texts = ReturnType<typeof oauthProviderMessages.in>;

const OIDC_SCOPE_KEYS = {
  openid: 'consent.scope.openid',
  profile: 'consent.scope.profile',
  email: 'consent.scope.email',
  offline_access: 'consent.scope.offline_access',
} as const;

const VERB_KEYS = {
  read: 'consent.scope.read',
  create: 'consent.scope.create',
  update: 'consent.scope.update',
  delete: 'consent.scope.delete',
  '*': 'consent.scope.all',
} as const;

function scopeText(t: Texts, scope: string): string {
  if (scope in OIDC_SCOPE_KEYS) return t(OIDC_SCOPE_KEYS[scope as keyof typeof OIDC_SCOPE_KEYS]);
  const [resource = scope, verb = ''] = scope.split(':');
  return verb in VERB_KEYS ? t(VERB_KEYS[verb as keyof typeof VERB_KEYS], { resource }) : scope;
}

/** The consent page, or the error page of a request that cannot be answered to its client. */
export function authorizePage(ctx: PageContext) {
  const t = oauthProviderMessages.in(ctx.language);
  const data = (ctx.outcome?.data ?? {}) as AuthorizePageData;
  if (data.view !== 'consent')
    return layout(
      ctx,
      t('consent.errorTitle'),
      html`<h1>${t('consent.errorHeading')}</h1>
        <p>${data.reason ? t(`consent.reason.${data.reason}`) : (ctx.outcome?.message ?? '')}</p>
        <p>${t('consent.errorHint')}</p>`,
    );
  const name = data.client_name ?? '';
  const host = data.redirect_host ?? '';
  return layout(
    ctx,
    t('consent.title', { name }),
    html`<h1 class="wrap">${t('consent.heading', { name })}</h1>
      ${
        data.unverified
          ? html`<p class="error" role="note"><strong>${t('consent.unverified', { host })}</strong></p>`
          : html`<p class="wrap">${t('consent.returnsTo', { host })}</p>`
      }
      <p>${t('consent.asks')}</p>
      <ul>
        ${(data.scopes ?? []).map((scope) => html`<li><code>${scope}</code>: ${scopeText(t, scope)}</li>`)}
      </ul>
      <form method="post" action="/oauth2/authorize/consent">
        ${csrfField(ctx)}
        <button type="submit" name="decision" value="allow">${t('consent.allow')}</button>
        <button type="submit" name="decision" value="deny" class="secondary">${t('consent.deny')}</button>
      </form>`,
  );
}
