import { html } from '../../http/html/html.ts';
import { field, form, layout } from '../../http/html/layout.ts';
import type { PageContext } from '../../http/response/respond.ts';

/** The request form: one address, one button. */
export function magicLinkPage(ctx: PageContext) {
  return layout(
    ctx,
    'Sign in by email',
    html`<p>
        Enter your email address. If it belongs to an account, we will email you a link that signs you in.
      </p>
      ${form(
        ctx,
        '/magic-link',
        field(ctx, { name: 'email', label: 'Email', type: 'email', autocomplete: 'email', required: true }),
        'Email me a link',
      )}
      ${ctx.serves('/login') ? html`<p><a href="/login">Sign in with a password instead</a></p>` : ''}`,
  );
}

/** What the "check your email" page says: how long the link works. */
export interface MagicLinkSentPageProps {
  linkMinutes: number;
}

/** After the request: the same words for any address. */
export function magicLinkSentPage(ctx: PageContext<MagicLinkSentPageProps>) {
  const minutes = ctx.props.linkMinutes;
  // The request's "a sign-in link is on its way" would only repeat what this page says.
  const frame = ctx.flash?.type === 'success' ? { ...ctx, flash: undefined } : ctx;
  return layout(
    frame,
    'Check your email',
    html`<p>
        If that address belongs to an account, we sent it a sign-in link. Open it in this browser: it works
        once and for ${minutes} minutes.
      </p>
      <p>Nothing arrived? Check your spam folder, or <a href="/magic-link">ask for another link</a>.</p>`,
  );
}
