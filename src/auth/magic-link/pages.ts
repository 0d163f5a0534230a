import { html, field, form, layout, type PageContext } from '../../plugin-api.ts';
import { magicLinkMessages } from './messages/index.ts';

/** The request form: one address, one button. */
export function magicLinkPage(ctx: PageContext) {
  const t = magicLinkMessages.in(ctx.language);
  return layout(
    ctx,
    t('page.title'),
    html`<p>${t('page.intro')}</p>
      ${form(
        ctx,
        '/magic-link',
        field(ctx, {
          name: 'email',
          label: t('page.email'),
          type: 'email',
          autocomplete: 'email',
          required: true,
        }),
        t('page.send'),
      )}
      ${ctx.serves('/login') ? html`<p><a href="/login">${t('page.passwordInstead')}</a></p>` : ''}`,
  );
}

/** What the "check your email" page says: how long the link works. */
export interface MagicLinkSentPageProps {
  linkMinutes: number;
}

/** After the request: the same words for any address. */
export function magicLinkSentPage(ctx: PageContext<MagicLinkSentPageProps>) {
  const t = magicLinkMessages.in(ctx.language);
  const minutes = ctx.props.linkMinutes;
  // The request's "a sign-in link is on its way" would only repeat what this page says.
  const frame = ctx.flash?.type === 'success' ? { ...ctx, flash: undefined } : ctx;
  return layout(
    frame,
    t('sent.title'),
    html`<p>${t('sent.intro', { minutes })}</p>
      <p>${t('sent.nothing')} <a href="/magic-link">${t('sent.another')}</a></p>`,
  );
}
