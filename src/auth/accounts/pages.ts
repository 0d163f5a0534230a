import { html, field, form, layout, servedLinks, type PageContext } from '../../plugin-api.ts';
import { accountsMessages } from './messages/index.ts';

/** The sign-in and registration pages show a button per configured social provider. */
export interface SignInPageProps {
  providers: { id: string; label: string }[];
  /** The password rules the register form states. */
  passwordLength: { passwordMinLength: number; passwordMaxLength: number };
}

/** "Sign in with …" buttons for the configured providers. */
function socialButtons(ctx: PageContext<SignInPageProps>) {
  // Social sign-in left out: no provider buttons, whatever OAUTH_* says.
  const providers = ctx.props.providers.filter((p) => ctx.serves(`/oauth/${p.id}`));
  if (providers.length === 0) return '';
  const t = accountsMessages.in(ctx.language);
  return html`<p>${t('social.intro')}</p>
    <ul class="social">
      ${providers.map((p) => html`<li><a href="/oauth/${p.id}">${t('social.signInWith', { provider: p.label })}</a></li>`)}
    </ul>`;
}

/**
 * An identifier a plugin offers to prefill the sign-in form with (`data.login_hint`: the OAuth
 * provider's waiting authorization); what the user typed comes first. A form value only.
 */
function identifierHint(ctx: PageContext<SignInPageProps>): string | undefined {
  const hint = ctx.outcome?.data?.login_hint;
  return ctx.input.email ?? (typeof hint === 'string' ? hint : undefined);
}

export function loginPage(ctx: PageContext<SignInPageProps>) {
  const t = accountsMessages.in(ctx.language);
  return layout(
    ctx,
    t('login.title'),
    html`${ctx.errors.credentials ? html`<div class="flash error" role="alert">${ctx.errors.credentials}</div>` : ''}
      ${form(
        ctx,
        '/login',
        html`${field(ctx, { name: 'email', label: t('login.identifier'), autocomplete: 'username webauthn', required: true, value: identifierHint(ctx) })}
          ${field(ctx, { name: 'password', label: t('login.password'), type: 'password', autocomplete: 'current-password', required: true })}
          <label class="check"
            ><input type="checkbox" name="remember" value="1" /> ${t('login.remember', { days: 30 })}</label
          >`,
        t('login.submit'),
      )}
      <div class="divider">${t('login.or')}</div>
      <button type="button" class="secondary" id="passkey-login">${t('login.passkey')}</button>
      <p
        id="passkey-login-status"
        role="status"
        data-checking="${t('passkey.checking')}"
        data-rejected="${t('passkey.rejected')}"
        data-not-used="${t('passkey.notUsed')}"
      ></p>
      <p>
        ${servedLinks(
          ctx,
          [
            ['/forgot-password', t('login.forgot')],
            ['/magic-link', t('login.magicLink')],
            ['/register', t('login.register')],
          ],
          ' · ',
        )}
      </p>
      ${socialButtons(ctx)}`,
    html`<script src="/assets/simplewebauthn.js" defer></script>
      <script src="/assets/passkey-login.js" defer></script>`,
  );
}

export function registerPage(ctx: PageContext<SignInPageProps>) {
  const t = accountsMessages.in(ctx.language);
  const limits = ctx.props.passwordLength;
  return layout(
    ctx,
    t('register.title'),
    html`${form(
        ctx,
        '/register',
        html`${field(ctx, { name: 'username', label: t('register.username'), autocomplete: 'username', required: true, hint: t('register.usernameHint', { min: 3, max: 30 }) })}
        ${field(ctx, { name: 'email', label: t('register.email'), type: 'email', autocomplete: 'email', required: true })}
        ${field(ctx, {
          name: 'password',
          label: t('register.password'),
          type: 'password',
          autocomplete: 'new-password',
          required: true,
          hint: t('register.passwordHint', { min: limits.passwordMinLength, max: limits.passwordMaxLength }),
        })}
        ${field(ctx, { name: 'password_confirm', label: t('register.confirm'), type: 'password', autocomplete: 'new-password', required: true })}`,
        t('register.submit'),
      )}
      <p>${t('register.already')} <a href="/login">${t('register.signIn')}</a></p>
      ${socialButtons(ctx)}`,
  );
}

export function forgotPasswordPage(ctx: PageContext) {
  const t = accountsMessages.in(ctx.language);
  return layout(
    ctx,
    t('forgot.title'),
    html`<p>${t('forgot.intro')}</p>
      ${form(ctx, '/forgot-password', field(ctx, { name: 'email', label: t('forgot.email'), type: 'email', autocomplete: 'email', required: true }), t('forgot.submit'))}`,
  );
}

/** The reset token from the link (GET) or the form that failed (POST): never re-filled from input. */
export interface ResetPasswordPageProps {
  token: string;
}

export function resetPasswordPage(ctx: PageContext<ResetPasswordPageProps>) {
  const t = accountsMessages.in(ctx.language);
  const { token } = ctx.props;
  // A dead link: nothing to fill in, only why and the way to a new link.
  if (ctx.errors.token)
    return layout(
      ctx,
      t('reset.deadTitle'),
      html`<p id="reset-link-error">${ctx.errors.token} ${t('reset.deadText')}</p>
        <p><a class="button" href="/forgot-password">${t('reset.newLink')}</a></p>`,
    );
  return layout(
    ctx,
    t('reset.title'),
    form(
      ctx,
      '/reset-password',
      html`<input type="hidden" name="token" value="${token}" />
        ${field(ctx, { name: 'password', label: t('reset.password'), type: 'password', autocomplete: 'new-password', required: true })}
        ${field(ctx, { name: 'password_confirm', label: t('reset.confirm'), type: 'password', autocomplete: 'new-password', required: true })}`,
      t('reset.submit'),
    ),
  );
}
