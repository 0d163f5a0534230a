import { html, type SafeHtml } from '../../http/html/html.ts';
import { csrfField, field, form, layout } from '../../http/html/layout.ts';
import type { PageContext } from '../../http/response/respond.ts';
import type { PasskeySummary } from './passkey.ts';
import type { PluginFactorView } from '../core/factors/types.ts';

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

function hidden(name: string, value: string): SafeHtml {
  return html`<input type="hidden" name="${name}" value="${value}" />`;
}

function recoveryCodesBox(codes: string[]): SafeHtml {
  return html`<section id="recovery-codes" class="flash info">
    <h2>Your recovery codes</h2>
    <p>
      Each code signs you in once if you lose your authenticator or passkey. Save them somewhere safe now:
      they are not shown again.
    </p>
    <ul>
      ${codes.map((c) => html`<li><code class="recovery-code">${c}</code></li>`)}
    </ul>
  </section>`;
}

/** The TOTP confirmation step: the QR code (after enroll/start) and the code entry form. */
function totpConfirm(ctx: PageContext, data: Record<string, unknown> | undefined): SafeHtml {
  const qr = typeof data?.qr_image === 'string' ? data.qr_image : undefined;
  const secret = typeof data?.secret === 'string' ? data.secret : undefined;
  return html`<section id="totp-enroll">
    <h2>Set up an authenticator app</h2>
    <p>
      Scan the code with an authenticator app (for example 1Password, Google Authenticator or Aegis), then
      type the 6-digit code it shows.
    </p>
    ${qr ? html`<p><img id="totp-qr" class="qr" src="${qr}" alt="QR code for your authenticator app" width="220" height="220" /></p>` : ''}
    ${secret ? html`<p>Or enter this key by hand: <code class="secret" id="totp-secret">${secret}</code></p>` : ''}
    ${form(
      ctx,
      '/two-factor/enroll/confirm',
      html`${hidden('factor', 'totp')}
      ${field(ctx, { name: 'proof', label: 'Code from the app', autocomplete: 'one-time-code', inputmode: 'numeric', required: true })}`,
      'Turn on',
    )}
    <p><a href="/two-factor" id="totp-cancel">Cancel setup</a></p>
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
    ? form(ctx, '/two-factor/enroll/start', hidden('factor', 'totp'), 'Set up authenticator app')
    : html`<p>
          <a class="button" href="/sudo?next=${encodeURIComponent('/two-factor?setup=totp')}"
            >Set up authenticator app</a
          >
        </p>
        <p class="hint">You will be asked to confirm it is you first.</p>`;
  const totpSection = enrollingTotp
    ? totpConfirm(ctx, totpData)
    : html`<section id="totp">
        <h2>Authenticator app</h2>
        ${
          enrolled.includes('totp')
            ? html`<p>Enabled.</p>
                ${dangerForm(ctx, '/two-factor/unenroll', hidden('factor', 'totp'), 'Remove authenticator app', 'Remove the authenticator app from your account?')}`
            : setupTotp
        }
      </section>`;

  const passkeySection = html`<section id="passkeys">
    <h2>Passkeys</h2>
    ${
      passkeys.length === 0
        ? html`<p>No passkeys yet.</p>`
        : html`<table>
            <tr>
              <th>Name</th>
              <th>Added</th>
              <th>Last used</th>
              <th></th>
            </tr>
            ${passkeys.map(
              (p) =>
                html`<tr class="passkey-row">
                  <td class="passkey-name">${p.name}</td>
                  <td>${p.created_at.slice(0, 10)}</td>
                  <td>${p.last_used_at ? p.last_used_at.slice(0, 10) : 'never'}</td>
                  <td>
                    <form
                      method="post"
                      action="/two-factor/unenroll"
                      class="inline"
                      data-confirm="Remove the passkey ${p.name}?"
                    >
                      ${csrfField(ctx)}${hidden('factor', 'passkey')}${hidden('credential_id', p.id)}
                      <button type="submit" class="danger" data-remove-passkey="${p.name}">Remove</button>
                    </form>
                  </td>
                </tr>`,
            )}
          </table>`
    }
    <label for="passkey-name">Name for a new passkey</label>
    <input id="passkey-name" type="text" maxlength="100" placeholder="e.g. Laptop" />
    <button type="button" id="passkey-register" data-passkey-register>Add a passkey</button>
    <p id="passkey-status" role="status"></p>
    <div id="passkey-result"></div>
  </section>`;

  const recoverySection =
    enrolled.length > 0
      ? html`<section id="recovery">
          <h2>Recovery codes</h2>
          <p><span id="recovery-remaining">${remaining}</span> unused recovery codes left.</p>
          ${form(ctx, '/two-factor/recovery-codes', '', 'Create new recovery codes')}
        </section>`
      : '';

  return layout(
    ctx,
    'Two-factor authentication',
    html`${codes ? recoveryCodesBox(codes) : ''} ${totpSection} ${passkeySection} ${recoverySection}`,
    SCRIPTS,
  );
}

/**
 * The `two_factor` sign-in step's fields, inside the pipeline's form posting to /action/handle:
 * one method picker for the typed proofs (app code, recovery code, plugins' factors), and the
 * passkey button.
 */
export function twoFactorStepFields(
  factors: string[],
  pluginFactors: readonly PluginFactorView[] = [],
): SafeHtml {
  const typed = factors.filter((f) => f === 'totp' || f === 'recovery_code');
  const hasTyped = typed.length > 0 || pluginFactors.length > 0;
  return html`${
    hasTyped
      ? html`<label for="field-factor">Method</label>
          <select id="field-factor" name="factor">
            ${typed.includes('totp') ? html`<option value="totp">Authenticator app code</option>` : ''}
            ${typed.includes('recovery_code') ? html`<option value="recovery_code">Recovery code</option>` : ''}
            ${pluginFactors.map((f) => html`<option value="${f.id}">${f.label}</option>`)}
          </select>
          <label for="field-proof">Code</label>
          <input id="field-proof" name="proof" type="text" autocomplete="one-time-code" required />`
      : ''
  }
  ${
    factors.includes('passkey')
      ? html`<p>
            <button type="button" id="passkey-sign-in" data-passkey-auth="sign-in">Use a passkey</button>
          </p>
          <p id="passkey-status" role="status"></p>
          ${SCRIPTS}`
      : ''
  }`;
}
