import { html } from '../../http/html/html.ts';
import { csrfField, layout } from '../../http/html/layout.ts';
import type { PageContext } from '../../http/response/respond.ts';

/** What the authorize pages show: a consent question, or why the request cannot go on. */
export type AuthorizePageData = {
  /** `consent`: ask; `error`: the request cannot be trusted (unknown client or redirect URI). */
  view?: 'consent' | 'error';
  client_name?: string;
  /** Registered by anyone (dynamic registration): shown as not verified, with its redirect host. */
  unverified?: boolean;
  redirect_host?: string;
  scopes?: string[];
  message?: string;
};

const SCOPE_TEXT: Readonly<Record<string, string>> = {
  openid: 'Know who you are on this site (your account id)',
  profile: 'See your username',
  email: 'See your email address',
  offline_access: 'Stay connected while you are away (refresh tokens)',
};

function scopeText(scope: string): string {
  const known = SCOPE_TEXT[scope];
  if (known) return known;
  const [resource, verb] = scope.split(':');
  return verb === '*' ? `Do anything with your ${resource}` : `${verb ?? ''} your ${resource ?? scope}`;
}

/** The consent page, or the error page of a request that cannot be answered to its client. */
export function authorizePage(ctx: PageContext) {
  const data = (ctx.outcome?.data ?? {}) as AuthorizePageData;
  if (data.view !== 'consent')
    return layout(
      ctx,
      'Authorization error',
      html`<h1>This sign-in request cannot be completed</h1>
        <p>${data.message ?? ctx.outcome?.message ?? 'The request is invalid.'}</p>
        <p>Go back to the application and try again, or contact its developers.</p>`,
    );
  const name = data.client_name ?? '';
  return layout(
    ctx,
    `Allow ${name}?`,
    html`<h1>Allow <span class="wrap">${name}</span> to use your account?</h1>
      ${
        data.unverified
          ? html`<p class="error" role="note">
              This application registered itself and is <strong>not verified</strong>. It will return you to
              <strong class="wrap">${data.redirect_host ?? ''}</strong>. Only continue if you trust that site.
            </p>`
          : html`<p>It will return you to <span class="wrap">${data.redirect_host ?? ''}</span>.</p>`
      }
      <p>It asks to:</p>
      <ul>
        ${(data.scopes ?? []).map((scope) => html`<li><code>${scope}</code>: ${scopeText(scope)}</li>`)}
      </ul>
      <form method="post" action="/oauth2/authorize/consent">
        ${csrfField(ctx)}
        <button type="submit" name="decision" value="allow">Allow</button>
        <button type="submit" name="decision" value="deny" class="secondary">Deny</button>
      </form>`,
  );
}
