import { html, type SafeHtml } from '../../http/html/html.ts';
import { field, form, layout, when } from '../../http/html/layout.ts';
import type { PageContext } from '../../http/response/respond.ts';
import { safeNext } from '../core/sudo/next.ts';
import type { PluginFactorView } from '../core/factors/types.ts';

function hidden(name: string, value: string): SafeHtml {
  return html`<input type="hidden" name="${name}" value="${value}" />`;
}

/** What the sudo page offers: the factors this user can prove, and the grace period, if any. */
export interface SudoPageProps {
  /** The factors this user can prove now. */
  factors: string[];
  /** The plugins' factors among them, with their labels and proof inputs. */
  pluginFactors: PluginFactorView[];
  /** The grace period in force, if any. */
  state: { expiresAt: string } | null;
  /** SUDO_TTL, for telling how long the confirmation lasts. */
  ttlSeconds: number;
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
          ${field(forFactor('password'), { name: 'proof', label: 'Password', hideLabel: true, type: 'password', autocomplete: 'current-password', required: true })}`,
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
          ${field(forFactor('recovery_code'), { name: 'proof', label: 'Recovery code', hideLabel: true, autocomplete: 'off', required: true })}`,
          'Confirm',
        )}
      </section>`,
    );
  for (const factor of ctx.props.pluginFactors)
    forms.push(
      html`<section id="sudo-${factor.id}">
        <h2>${factor.label}</h2>
        ${form(
          ctx,
          '/sudo/verify',
          html`${hidden('factor', factor.id)}${keepNext}
          ${field(forFactor(factor.id), { name: 'proof', label: factor.input.label, hideLabel: factor.input.label === factor.label, autocomplete: factor.input.autocomplete ?? 'off', inputmode: factor.input.inputmode, required: true })}`,
          'Confirm',
        )}
      </section>`,
    );

  // The guard's flash ("Please confirm your identity…") would repeat what this page says better.
  const frame = ctx.flash?.message === SUDO_REQUIRED ? { ...ctx, flash: undefined } : ctx;
  const purpose = next ? purposeOf(next) : null;
  const status = state
    ? html`<p id="sudo-active">
          Sensitive changes are allowed until ${when(state.expiresAt, '')}, without asking again.
        </p>
        <div class="actions">
          ${next ? html`<a class="button" id="sudo-continue" href="${next}">Continue${purpose ? ` to ${purpose}` : ''}</a>` : ''}
          ${form(ctx, '/sudo/exit', '', 'Leave sudo mode', html`class="inline"`, 'secondary')}
        </div>`
    : html`<p>
        ${purpose ? html`To <strong>${purpose}</strong>, confirm` : 'Confirm'} it is you with one of these.
        You will not be asked again for ${Math.round(ctx.props.ttlSeconds / 60)} minutes.
      </p>`;
  const none = factors.length === 0 ? html`<p>Sign in again to continue.</p>` : '';

  return layout(
    frame,
    state ? 'Sudo mode is on' : 'Confirm it is you',
    html`${status}${state ? '' : html`${forms}${none}`}`,
    factors.includes('passkey')
      ? html`<script src="/assets/simplewebauthn.js" defer></script>
          <script src="/assets/passkeys.js" defer></script>`
      : '',
  );
}

const SUDO_REQUIRED = 'Please confirm your identity to continue.';

/** What the page the user came from does, in words, so the prompt says what asked for it. */
function purposeOf(next: string): string | null {
  const path = next.split('?')[0];
  if (path === '/tokens') return 'create an access token';
  if (path === '/two-factor') return 'change your two-factor settings';
  if (path === '/account') return 'change your email address';
  if (path === '/account/delete') return 'delete your account';
  if (path === '/set-password') return 'change your password';
  return null;
}
