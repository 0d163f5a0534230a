import { html } from '../../http/html/html.ts';
import { field, form, layout } from '../../http/html/layout.ts';
import type { PageContext } from '../../http/response/respond.ts';

/** Whether the user has a password yet (social sign-up: not yet). */
export interface SetPasswordPageProps {
  hasPassword: boolean;
}

/** Set a first password (social sign-up) or change the current one (asks for sudo first). */
export function setPasswordPage(ctx: PageContext<SetPasswordPageProps>) {
  const { hasPassword } = ctx.props;
  return layout(
    ctx,
    hasPassword ? 'Change your password' : 'Set a password',
    html`<p>
        ${
          hasPassword
            ? 'Changing your password signs you out everywhere else. You may be asked to confirm your identity first.'
            : 'You signed up with a sign-in provider. Set a password to also sign in with your email or username.'
        }
      </p>
      ${form(
        ctx,
        '/set-password',
        html`${field(ctx, { name: 'password', label: 'New password', type: 'password', autocomplete: 'new-password', required: true })}
        ${field(ctx, { name: 'password_confirm', label: 'Confirm new password', type: 'password', autocomplete: 'new-password', required: true })}`,
        hasPassword ? 'Change password' : 'Set password',
      )}`,
  );
}
