import {
  html,
  type SafeHtml,
  field,
  form,
  layout,
  type PageContext,
  safeNext,
  type PluginFactorView,
  coreMessages,
  authMessages,
} from '../../plugin-api.ts';
import { sudoMessages } from './messages/index.ts';
import type { SudoEnglish } from './messages/en.ts';

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
  const t = sudoMessages.in(ctx.language);
  const { factors, state } = ctx.props;
  const next = safeNext(ctx.outcome?.data?.next ?? ctx.query.next ?? ctx.input.next) ?? '';
  const keepNext = next ? hidden('next', next) : '';
  const chosen = ctx.input.factor;
  const forFactor = (id: string) => (chosen === id ? ctx : { ...ctx, errors: {} });

  const forms: SafeHtml[] = [];
  if (factors.includes('password'))
    forms.push(
      html`<section id="sudo-password">
        <h2>${t('page.password')}</h2>
        ${form(
          ctx,
          '/sudo/verify',
          html`${hidden('factor', 'password')}${keepNext}
          ${field(forFactor('password'), { name: 'proof', label: t('page.password'), hideLabel: true, type: 'password', autocomplete: 'current-password', required: true })}`,
          t('page.confirm'),
        )}
      </section>`,
    );
  if (factors.includes('totp'))
    forms.push(
      html`<section id="sudo-totp">
        <h2>${t('page.totp')}</h2>
        ${form(
          ctx,
          '/sudo/verify',
          html`${hidden('factor', 'totp')}${keepNext}
          ${field(forFactor('totp'), { name: 'proof', label: t('page.totpCode'), autocomplete: 'one-time-code', inputmode: 'numeric', required: true })}`,
          t('page.confirm'),
        )}
      </section>`,
    );
  if (factors.includes('passkey'))
    forms.push(
      html`<section id="sudo-passkey">
        <h2>${t('page.passkey')}</h2>
        <button type="button" id="passkey-sudo" data-passkey-auth="sudo" data-next="${next}">
          ${t('page.usePasskey')}
        </button>
        <p
          id="passkey-status"
          role="status"
          data-waiting="${t('passkey.waiting')}"
          data-not-used="${t('passkey.notUsed')}"
          data-unavailable="${t('passkey.unavailable')}"
          data-failed="${t('passkey.failed')}"
        ></p>
      </section>`,
    );
  if (factors.includes('recovery_code'))
    forms.push(
      html`<section id="sudo-recovery">
        <h2>${t('page.recoveryCode')}</h2>
        ${form(
          ctx,
          '/sudo/verify',
          html`${hidden('factor', 'recovery_code')}${keepNext}
          ${field(forFactor('recovery_code'), { name: 'proof', label: t('page.recoveryCode'), hideLabel: true, autocomplete: 'off', required: true })}`,
          t('page.confirm'),
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
          t('page.confirm'),
        )}
      </section>`,
    );

  // The guard's flash ("Please confirm your identity…") would repeat what this page says better.
  const frame = isSudoRequiredFlash(ctx) ? { ...ctx, flash: undefined } : ctx;
  const purposeKey = next ? purposeOf(next) : null;
  const purpose = purposeKey ? t(purposeKey) : null;
  const minutes = Math.round(ctx.props.ttlSeconds / 60);
  const status = state
    ? html`<p id="sudo-active">
          ${t('page.activeUntil', { until: coreMessages.in(ctx.language)('time.utc', { at: state.expiresAt }) })}
        </p>
        <div class="actions">
          ${next ? html`<a class="button" id="sudo-continue" href="${next}">${purpose ? t('page.continueTo', { purpose }) : t('page.continue')}</a>` : ''}
          ${form(ctx, '/sudo/exit', '', t('page.leave'), html`class="inline"`, 'secondary')}
        </div>`
    : html`<p>${purpose ? t('page.introFor', { purpose, minutes }) : t('page.intro', { minutes })}</p>`;
  const none = factors.length === 0 ? html`<p>${t('page.signInAgain')}</p>` : '';

  return layout(
    frame,
    state ? t('page.activeTitle') : t('page.title'),
    html`${status}${state ? '' : html`${forms}${none}`}`,
    factors.includes('passkey')
      ? html`<script src="/assets/simplewebauthn.js" defer></script>
          <script src="/assets/passkeys.js" defer></script>`
      : '',
  );
}

/** The guard's flash, in the reader's language or (not yet translated) in English. */
function isSudoRequiredFlash(ctx: PageContext): boolean {
  const shown = ctx.flash?.message;
  if (shown === undefined) return false;
  const required = authMessages.text('sudo.required');
  return shown === required.in(ctx.language) || shown === String(required);
}

type Purpose = Extract<keyof SudoEnglish, `purpose.${string}`>;

/** What the page the user came from does, in words, so the prompt says what asked for it. */
function purposeOf(next: string): Purpose | null {
  const path = next.split('?')[0];
  if (path === '/tokens') return 'purpose.tokens';
  if (path === '/two-factor') return 'purpose.twoFactor';
  if (path === '/account') return 'purpose.email';
  if (path === '/account/delete') return 'purpose.deleteAccount';
  if (path === '/set-password') return 'purpose.password';
  return null;
}
