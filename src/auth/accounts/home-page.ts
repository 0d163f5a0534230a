import { html, layout, servedLinks, type PageContext } from '../../plugin-api.ts';
import { accountsMessages } from './messages/index.ts';
import type { AccountsEnglish } from './messages/en.ts';

const API_DOCS = '/api/v1/docs/ui';
const LINKS: readonly (readonly [string, keyof AccountsEnglish & `home.${string}`])[] = [
  ['/account', 'home.account'],
  ['/sessions', 'home.sessions'],
  ['/two-factor', 'home.twoFactor'],
  ['/tokens', 'home.tokens'],
  ['/set-password', 'home.password'],
  [API_DOCS, 'home.apiDocs'],
];

export function homePage(ctx: PageContext) {
  const t = accountsMessages.in(ctx.language);
  const content = ctx.user
    ? html`<p>${t('home.signedInAs', { username: ctx.user.username, email: ctx.user.email })}</p>
        <ul>
          ${LINKS.filter(([path]) => ctx.serves(path)).map(([path, label]) => html`<li><a href="${path}">${t(label)}</a></li>`)}
        </ul>`
    : html`<p>
          ${t('home.welcome')}
          ${servedLinks(
            ctx,
            [
              ['/login', t('home.signIn')],
              ['/register', t('home.register')],
            ],
            t('home.or'),
          )}.
        </p>
        ${ctx.serves(API_DOCS) ? html`<p><a href="${API_DOCS}">${t('home.apiDocs')}</a></p>` : ''}`;
  return layout(ctx, ctx.appName, content);
}
