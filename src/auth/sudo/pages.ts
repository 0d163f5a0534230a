import { html, type SafeHtml } from '../../http/html.ts';
import { field, form, layout } from '../../http/layout.ts';
import type { PageContext } from '../../http/respond.ts';
import { safeNext } from './next.ts';

function hidden(name: string, value: string): SafeHtml {
  return html`<input type="hidden" name="${name}" value="${value}" />`;
}

export interface SudoPageProps {
  /** The factors this user can prove now. */
  factors: string[];
  /** The grace period in force, if any. */
  state: { expiresAt: string } | null;
}

/** The step-up page: one form per factor this user can prove. */
export function sudoPage(ctx: PageContext<SudoPageProps>): SafeHtml {
  const { factors, state } = ctx.props;
  const next = safeNext(ctx.outcome?.data?.next ?? ctx.query.next ?? ctx.input.next) ?? '';
  const keepNext = next ? hidden('next', next) : '';
  const chosen = ctx.input.factor;
  const forFactor = (id: string) => (chosen === id ? ctx : { ...ctx, errors: {} });

  const forms: SafeHtml[] = [];
  if (factors.includes('password'))
    forms.push(
      html`<section id="sudo-password">
        <h2>Password</h2>
        ${form(
          ctx,
          '/sudo/verify',
          html`${hidden('factor', 'password')}${keepNext}
          ${field(forFactor('password'), { name: 'proof', label: 'Password', type: 'password', autocomplete: 'current-password', required: true })}`,
          'Confirm',
        )}
      </section>`,
    );
  if (factors.includes('totp'))
    forms.push(
      html`<section id="sudo-totp">
        <h2>Authenticator app</h2>
        ${form(
          ctx,
          '/sudo/verify',
          html`${hidden('factor', 'totp')}${keepNext}
          ${field(forFactor('totp'), { name: 'proof', label: 'Code from the app', autocomplete: 'one-time-code', inputmode: 'numeric', required: true })}`,
          'Confirm',
        )}
      </section>`,
    );
  if (factors.includes('passkey'))
    forms.push(
      html`<section id="sudo-passkey">
        <h2>Passkey</h2>
        <button type="button" id="passkey-sudo" data-passkey-auth="sudo" data-next="${next}">
          Use a passkey
        </button>
        <p id="passkey-status" role="status"></p>
      </section>`,
    );
  if (factors.includes('recovery_code'))
    forms.push(
      html`<section id="sudo-recovery">
        <h2>Recovery code</h2>
        ${form(
          ctx,
          '/sudo/verify',
          html`${hidden('factor', 'recovery_code')}${keepNext}
          ${field(forFactor('recovery_code'), { name: 'proof', label: 'Recovery code', autocomplete: 'off', required: true })}`,
          'Confirm',
        )}
      </section>`,
    );

  const status = state
    ? html`<p id="sudo-active">Sudo mode is active until ${state.expiresAt}.</p>
        ${next ? html`<p><a id="sudo-continue" href="${next}">Continue</a></p>` : ''}
        ${form(ctx, '/sudo/exit', '', 'Leave sudo mode')}`
    : html`<p>Please confirm your identity to continue.</p>`;
  const none = factors.length === 0 ? html`<p>Sign in again to continue.</p>` : '';

  return layout(
    ctx,
    'Confirm your identity',
    html`${status}${state ? '' : html`${forms}${none}`}`,
    factors.includes('passkey')
      ? html`<script src="/assets/simplewebauthn.js" defer></script>
          <script src="/assets/passkeys.js" defer></script>`
      : '',
  );
}
