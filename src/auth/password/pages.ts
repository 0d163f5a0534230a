import { html, field, form, layout, type PageContext } from '../../plugin-api.ts';
import { passwordMessages } from './messages/index.ts';

/** Whether the user has a password yet (social sign-up: not yet). */
export interface SetPasswordPageProps {
  hasPassword: boolean;
}

/** Set a first password (social sign-up) or change the current one (asks for sudo first). */
export function setPasswordPage(ctx: PageContext<SetPasswordPageProps>) {
  const t = passwordMessages.in(ctx.language);
  const { hasPassword } = ctx.props;
  return layout(
    ctx,
    hasPassword ? t('page.changeTitle') : t('page.setTitle'),
    html`<p>${hasPassword ? t('page.changeIntro') : t('page.setIntro')}</p>
      ${form(
        ctx,
        '/set-password',
        html`${field(ctx, { name: 'password', label: t('page.newPassword'), type: 'password', autocomplete: 'new-password', required: true })}
        ${field(ctx, { name: 'password_confirm', label: t('page.confirmPassword'), type: 'password', autocomplete: 'new-password', required: true })}`,
        hasPassword ? t('page.change') : t('page.set'),
      )}`,
  );
}
