import { html } from '../../http/html/html.ts';
import { field, form, layout, servedLinks } from '../../http/html/layout.ts';
import type { PageContext } from '../../http/response/respond.ts';

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
  return html`<p>Or continue with:</p>
    <ul class="social">
      ${providers.map((p) => html`<li><a href="/oauth/${p.id}">Sign in with ${p.label}</a></li>`)}
    </ul>`;
}

export function loginPage(ctx: PageContext<SignInPageProps>) {
  return layout(
    ctx,
    'Sign in',
    html`${ctx.errors.credentials ? html`<div class="flash error" role="alert">${ctx.errors.credentials}</div>` : ''}
      ${form(
        ctx,
        '/login',
        html`${field(ctx, { name: 'email', label: 'Email or username', autocomplete: 'username webauthn', required: true })}
          ${field(ctx, { name: 'password', label: 'Password', type: 'password', autocomplete: 'current-password', required: true })}
          <label class="check"
            ><input type="checkbox" name="remember" value="1" /> Keep me signed in for 30 days</label
          >`,
        'Sign in',
      )}
      <div class="divider">or</div>
      <button type="button" class="secondary" id="passkey-login">Sign in with a passkey</button>
      <p id="passkey-login-status" role="status"></p>
      <p>
        ${servedLinks(
          ctx,
          [
            ['/forgot-password', 'Forgot your password?'],
            ['/magic-link', 'Email me a sign-in link'],
            ['/register', 'Create an account'],
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
  const limits = ctx.props.passwordLength;
  return layout(
    ctx,
    'Create an account',
    html`${form(
        ctx,
        '/register',
        html`${field(ctx, { name: 'username', label: 'Username', autocomplete: 'username', required: true, hint: '3 to 30 letters, digits and spaces.' })}
        ${field(ctx, { name: 'email', label: 'Email', type: 'email', autocomplete: 'email', required: true })}
        ${field(ctx, {
          name: 'password',
          label: 'Password',
          type: 'password',
          autocomplete: 'new-password',
          required: true,
          hint: `${limits.passwordMinLength} to ${limits.passwordMaxLength} characters, not a commonly used password. A few unrelated words work well.`,
        })}
        ${field(ctx, { name: 'password_confirm', label: 'Confirm password', type: 'password', autocomplete: 'new-password', required: true })}`,
        'Create account',
      )}
      <p>Already registered? <a href="/login">Sign in</a></p>
      ${socialButtons(ctx)}`,
  );
}

export function forgotPasswordPage(ctx: PageContext) {
  return layout(
    ctx,
    'Forgot your password?',
    html`<p>
        Enter your email address. If it belongs to an account, we will send a link to choose a new password.
      </p>
      ${form(ctx, '/forgot-password', field(ctx, { name: 'email', label: 'Email', type: 'email', autocomplete: 'email', required: true }), 'Send reset link')}`,
  );
}

/** The reset token from the link (GET) or the form that failed (POST): never re-filled from input. */
export interface ResetPasswordPageProps {
  token: string;
}

export function resetPasswordPage(ctx: PageContext<ResetPasswordPageProps>) {
  const { token } = ctx.props;
  // A dead link: nothing to fill in, only why and the way to a new link.
  if (ctx.errors.token)
    return layout(
      ctx,
      'This reset link no longer works',
      html`<p id="reset-link-error">${ctx.errors.token} Reset links work once and only for a short time.</p>
        <p><a class="button" href="/forgot-password">Ask for a new link</a></p>`,
    );
  return layout(
    ctx,
    'Choose a new password',
    form(
      ctx,
      '/reset-password',
      html`<input type="hidden" name="token" value="${token}" />
        ${field(ctx, { name: 'password', label: 'New password', type: 'password', autocomplete: 'new-password', required: true })}
        ${field(ctx, { name: 'password_confirm', label: 'Confirm new password', type: 'password', autocomplete: 'new-password', required: true })}`,
      'Set new password',
    ),
  );
}
