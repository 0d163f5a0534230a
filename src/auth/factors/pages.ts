import {
  html,
  type SafeHtml,
  csrfField,
  field,
  form,
  layout,
  type PageContext,
  type PluginFactorView,
  type Language,
  type Texts,
} from '../../plugin-api.ts';
import type { PasskeySummary } from './passkey.ts';
import { factorsMessages } from './messages/index.ts';
import type { FactorsEnglish } from './messages/en.ts';

type T = Texts<FactorsEnglish>;

/**
 * What the passkey script says, in the reader's language: data attributes of its status line
 * (`data-waiting` …), read by assets/passkeys.js, which falls back to English.
 */
export function passkeyStatus(t: T): SafeHtml {
  return html`<p
    id="passkey-status"
    role="status"
    data-waiting="${t('script.waiting')}"
    data-not-created="${t('script.notCreated')}"
    data-not-used="${t('script.notUsed')}"
    data-unavailable="${t('script.unavailable')}"
    data-failed="${t('script.failed')}"
    data-codes-title="${t('script.codesTitle')}"
    data-codes-saved="${t('script.codesSaved')}"
  ></p>`;
}

/** `text` with the first `shown` in it wrapped by `wrap` (a count in its own element); else as is. */
function marking(text: string, shown: string, wrap: (shown: string) => SafeHtml): SafeHtml {
  const at = text.indexOf(shown);
  if (at < 0) return html`${text}`;
  return html`${text.slice(0, at)}${wrap(shown)}${text.slice(at + shown.length)}`;
}

const SCRIPTS = html`<script src="/assets/simplewebauthn.js" defer></script>
  <script src="/assets/passkeys.js" defer></script>`;

/** A destructive action: a red button that asks before it submits. */
function dangerForm(
  ctx: PageContext,
  action: string,
  fields: SafeHtml,
  label: string,
  question: string,
): SafeHtml {
  return html`<form method="post" action="${action}" class="inline" data-confirm="${question}">
    ${csrfField(ctx)}${fields}<button type="submit" class="danger">${label}</button>
  </form>`;
}

/** A timestamp's calendar day (UTC) in the reader's language. */
function dayOf(language: Language) {
  return (at: string) => language.format.date(at, { dateStyle: 'medium', timeZone: 'UTC' });
}

function hidden(name: string, value: string): SafeHtml {
  return html`<input type="hidden" name="${name}" value="${value}" />`;
}

function recoveryCodesBox(t: T, codes: string[]): SafeHtml {
  return html`<section id="recovery-codes" class="flash info">
    <h2>${t('codes.title')}</h2>
    <p>${t('codes.intro')}</p>
    <ul>
      ${codes.map((c) => html`<li><code class="recovery-code">${c}</code></li>`)}
    </ul>
  </section>`;
}

/** The TOTP confirmation step: the QR code (after enroll/start) and the code entry form. */
function totpConfirm(ctx: PageContext, t: T, data: Record<string, unknown> | undefined): SafeHtml {
  const qr = typeof data?.qr_image === 'string' ? data.qr_image : undefined;
  const secret = typeof data?.secret === 'string' ? data.secret : undefined;
  return html`<section id="totp-enroll">
    <h2>${t('totp.setupTitle')}</h2>
    <p>${t('totp.setupIntro')}</p>
    ${qr ? html`<p><img id="totp-qr" class="qr" src="${qr}" alt="${t('totp.qrAlt')}" width="220" height="220" /></p>` : ''}
    ${secret ? html`<p>${t('totp.keyByHand')} <code class="secret" id="totp-secret">${secret}</code></p>` : ''}
    ${form(
      ctx,
      '/two-factor/enroll/confirm',
      html`${hidden('factor', 'totp')}
      ${field(ctx, { name: 'proof', label: t('totp.code'), autocomplete: 'one-time-code', inputmode: 'numeric', required: true })}`,
      t('totp.turnOn'),
    )}
    <p><a href="/two-factor" id="totp-cancel">${t('totp.cancel')}</a></p>
  </section>`;
}

/** Two-factor settings: authenticator app, passkeys, recovery codes. */
export interface TwoFactorPageProps {
  settings: Record<string, unknown>;
  /** The TOTP enrollment in progress (QR code and key), for showing it again after a wrong code. */
  pendingTotp?: Record<string, unknown>;
  sudoActive: boolean;
}

export function twoFactorPage(ctx: PageContext<TwoFactorPageProps>): SafeHtml {
  const t = factorsMessages.in(ctx.language);
  const day = dayOf(ctx.language);
  const outcome = ctx.outcome;
  // Error renders carry no data: the current settings the route read again.
  const data = outcome?.data && 'enrolled_factors' in outcome.data ? outcome.data : ctx.props.settings;
  const enrolled = (data.enrolled_factors as string[] | undefined) ?? [];
  const passkeys = (data.passkeys as PasskeySummary[] | undefined) ?? [];
  const remaining = Number(data.recovery_codes_remaining ?? 0);
  const codes = outcome?.data?.recovery_codes as string[] | undefined;

  const enrollingTotp =
    (outcome?.action === 'two_factor.enroll.start' && outcome.data?.factor === 'totp') ||
    (outcome?.action === 'two_factor.enroll.confirm' &&
      outcome.status === 'error' &&
      ctx.input.factor === 'totp');

  // After a wrong code the outcome carries no secret: the enrollment in progress still has it.
  const totpData = outcome?.data?.secret !== undefined ? outcome.data : ctx.props.pendingTotp;
  const sudoActive = ctx.props.sudoActive;
  const setupTotp = sudoActive
    ? form(ctx, '/two-factor/enroll/start', hidden('factor', 'totp'), t('totp.setup'))
    : html`<p>
          <a class="button" href="/sudo?next=${encodeURIComponent('/two-factor?setup=totp')}"
            >${t('totp.setup')}</a
          >
        </p>
        <p class="hint">${t('totp.sudoHint')}</p>`;
  const totpSection = enrollingTotp
    ? totpConfirm(ctx, t, totpData)
    : html`<section id="totp">
        <h2>${t('totp.title')}</h2>
        ${
          enrolled.includes('totp')
            ? html`<p>${t('totp.enabled')}</p>
                ${dangerForm(ctx, '/two-factor/unenroll', hidden('factor', 'totp'), t('totp.remove'), t('totp.removeConfirm'))}`
            : setupTotp
        }
      </section>`;

  const passkeySection = html`<section id="passkeys">
    <h2>${t('passkeys.title')}</h2>
    ${
      passkeys.length === 0
        ? html`<p>${t('passkeys.none')}</p>`
        : html`<table>
            <tr>
              <th>${t('passkeys.name')}</th>
              <th>${t('passkeys.added')}</th>
              <th>${t('passkeys.lastUsed')}</th>
              <th><span class="visually-hidden">${t('passkeys.actions')}</span></th>
            </tr>
            ${passkeys.map(
              (p) =>
                html`<tr class="passkey-row">
                  <td class="passkey-name">${p.name}</td>
                  <td>${day(p.created_at)}</td>
                  <td>${p.last_used_at ? day(p.last_used_at) : t('passkeys.never')}</td>
                  <td>
                    <form
                      method="post"
                      action="/two-factor/unenroll"
                      class="inline"
                      data-confirm="${t('passkeys.removeConfirm', { name: p.name })}"
                    >
                      ${csrfField(ctx)}${hidden('factor', 'passkey')}${hidden('credential_id', p.id)}
                      <button type="submit" class="danger" data-remove-passkey="${p.name}">
                        ${t('passkeys.remove')}
                      </button>
                    </form>
                  </td>
                </tr>`,
            )}
          </table>`
    }
    <label for="passkey-name">${t('passkeys.newName')}</label>
    <input id="passkey-name" type="text" maxlength="100" placeholder="${t('passkeys.placeholder')}" />
    <button type="button" id="passkey-register" data-passkey-register>${t('passkeys.add')}</button>
    ${passkeyStatus(t)}
    <div id="passkey-result"></div>
  </section>`;

  const recoverySection =
    enrolled.length > 0
      ? html`<section id="recovery">
          <h2>${t('recovery.title')}</h2>
          <p>
            ${marking(
              t('recovery.remaining', { count: remaining }),
              ctx.language.format.number(remaining),
              (shown) => html`<span id="recovery-remaining">${shown}</span>`,
            )}
          </p>
          ${form(ctx, '/two-factor/recovery-codes', '', t('recovery.create'))}
        </section>`
      : '';

  return layout(
    ctx,
    t('page.title'),
    html`${codes ? recoveryCodesBox(t, codes) : ''} ${totpSection} ${passkeySection} ${recoverySection}`,
    SCRIPTS,
  );
}

/**
 * The `two_factor` sign-in step's fields, inside the pipeline's form posting to /action/handle:
 * one method picker for the typed proofs (app code, recovery code, plugins' factors), and the
 * passkey button.
 */
export function twoFactorStepFields(
  language: Language,
  factors: string[],
  pluginFactors: readonly PluginFactorView[] = [],
): SafeHtml {
  const t = factorsMessages.in(language);
  const typed = factors.filter((f) => f === 'totp' || f === 'recovery_code');
  const hasTyped = typed.length > 0 || pluginFactors.length > 0;
  return html`${
    hasTyped
      ? html`<label for="field-factor">${t('step.method')}</label>
          <select id="field-factor" name="factor">
            ${typed.includes('totp') ? html`<option value="totp">${t('step.totpCode')}</option>` : ''}
            ${typed.includes('recovery_code') ? html`<option value="recovery_code">${t('step.recoveryCode')}</option>` : ''}
            ${pluginFactors.map((f) => html`<option value="${f.id}">${f.label}</option>`)}
          </select>
          <label for="field-proof">${t('step.code')}</label>
          <input id="field-proof" name="proof" type="text" autocomplete="one-time-code" required />`
      : ''
  }
  ${
    factors.includes('passkey')
      ? html`<p>
            <button type="button" id="passkey-sign-in" data-passkey-auth="sign-in">
              ${t('step.usePasskey')}
            </button>
          </p>
          ${passkeyStatus(t)} ${SCRIPTS}`
      : ''
  }`;
}
