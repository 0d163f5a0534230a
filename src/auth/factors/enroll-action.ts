import {
  type ActionContext,
  type PipelineAction,
  ValidationError,
  html,
  type SafeHtml,
  forgetSignInFacts,
  changeWithEvent,
  originOf,
  notify,
} from '../../plugin-api.ts';
import { enrolledAtSignIn } from './registry.ts';
import { totpFactor } from './totp.ts';
import { passkeyFactor } from './passkey.ts';
import { issueRecoveryCodes } from './recovery.ts';
import { factorsOptions } from './options.ts';
import { factorsMessages } from './messages/index.ts';

const SEAL = 'enroll-display';
/** Shorter than the factor's own 10-minute enrollment state, so a shown QR code is always usable. */
const DISPLAY_TTL_MS = 8 * 60 * 1000;
/** The session key holding the new recovery codes (sealed) until the user has seen them. */
const CODES_KEY = 'enroll_recovery_codes';

interface TotpDisplay {
  secret: string;
  qr_uri: string;
  qr_image: string;
  created: number;
}

function readDisplay(ctx: ActionContext): TotpDisplay | undefined {
  const sealed = ctx.state.totp;
  if (typeof sealed !== 'string') return undefined;
  try {
    return JSON.parse(ctx.services.secrets.decrypt(SEAL, sealed)) as TotpDisplay;
  } catch {
    return undefined;
  }
}

/** A TOTP secret for this enrollment, kept sealed in the pending state (never plain in the session). */
async function totpDisplay(ctx: ActionContext): Promise<TotpDisplay> {
  const current = readDisplay(ctx);
  if (current && Date.now() - current.created < DISPLAY_TTL_MS) return current;
  const started = await totpFactor.enrollStart(ctx.request, ctx.user, {});
  const display: TotpDisplay = {
    secret: String(started.secret),
    qr_uri: String(started.qr_uri),
    qr_image: String(started.qr_image),
    created: Date.now(),
  };
  ctx.state.totp = ctx.services.secrets.encrypt(SEAL, JSON.stringify(display));
  return display;
}

/**
 * REQUIRE_TWO_FACTOR=1: a user with no second factor sets one up (TOTP or passkey) before the sign-in
 * finishes. The recovery codes come next, in their own step, so they are shown before the session starts.
 */
export const twoFactorEnrollAction: PipelineAction = {
  id: 'two_factor_enroll',
  automatic: true,
  label: factorsMessages.text('action.enroll'),

  async isPendingFor(ctx) {
    return (
      factorsOptions(ctx.services).requireTwoFactor &&
      (await enrolledAtSignIn(ctx.request, ctx.user)).length === 0
    );
  },

  async show(ctx) {
    const totp = await totpDisplay(ctx);
    const passkey = await passkeyFactor.enrollStart(ctx.request, ctx.user, {});
    return {
      factors: ['totp', 'passkey'],
      totp: { secret: totp.secret, qr_uri: totp.qr_uri, qr_image: totp.qr_image },
      passkey: { options: passkey.options },
    };
  },

  async handle(ctx, body) {
    const factor = typeof body.factor === 'string' && body.factor !== '' ? body.factor : 'totp';
    const proof = body.proof ?? body.code;
    if (proof === undefined || proof === null || proof === '')
      throw new ValidationError({ code: factorsMessages.text('enroll.codeRequired') });
    const chosen = factor === 'totp' ? totpFactor : factor === 'passkey' ? passkeyFactor : undefined;
    if (!chosen) throw new ValidationError({ factor: factorsMessages.text('enroll.chooseFactor') });
    const origin = originOf(ctx.request);
    // The factor and its event commit together; the notice follows the commit.
    const event = {
      userId: ctx.user.id,
      type: 'factor_enrolled' as const,
      ...origin,
      detail: { factor: chosen.id, required: true },
    };
    const stored = await chosen.enrollConfirm(ctx.request, ctx.user, proof, body, (write) =>
      changeWithEvent(ctx.services, event, write),
    );
    if (stored)
      void notify(ctx.services, ctx.user, 'factor_enrolled', {
        subject: factorsMessages.in(ctx.request.language)(
          chosen.id === 'totp' ? 'factor.totp' : 'factor.passkey',
        ),
        userAgent: origin.userAgent,
        ip: origin.ip,
        locale: ctx.request.language.locale,
      });
    return stored;
  },

  async complete(ctx) {
    const codes = await issueRecoveryCodes(ctx.services, ctx.user.id);
    ctx.request.session.set(CODES_KEY, {
      contextId: ctx.contextId,
      sealed: ctx.services.secrets.encrypt(SEAL, JSON.stringify(codes)),
    });
    delete ctx.state.totp;
    forgetSignInFacts(ctx.request);
  },

  renderFields(ctx): SafeHtml {
    const t = factorsMessages.in(ctx.request.language);
    const totp = readDisplay(ctx);
    return html`<p>${t('enroll.intro')}</p>
      ${
        totp
          ? html`<img class="qr" src="${totp.qr_image}" alt="${t('totp.qrAlt')}" width="200" height="200" />
              <p>${t('enroll.keyByHand')} <code class="secret">${totp.secret}</code></p>`
          : ''
      }
      <input type="hidden" name="factor" value="totp" />
      <label for="field-code">${t('totp.code')}</label>
      <input
        id="field-code"
        name="code"
        type="text"
        inputmode="numeric"
        autocomplete="one-time-code"
        required
      />`;
  },
};

function readCodes(ctx: ActionContext): string[] | undefined {
  const saved = ctx.request.session.get<{ contextId: string; sealed: string }>(CODES_KEY);
  if (!saved || saved.contextId !== ctx.contextId) return undefined;
  try {
    return JSON.parse(ctx.services.secrets.decrypt(SEAL, saved.sealed)) as string[];
  } catch {
    return undefined;
  }
}

/** Shows the recovery codes of a just-finished required enrollment; passes once the user says they saved them. */
export const recoveryCodesAction: PipelineAction = {
  id: 'two_factor_recovery_codes',
  automatic: true,
  label: factorsMessages.text('action.recoveryCodes'),

  isPendingFor(ctx) {
    return readCodes(ctx) !== undefined;
  },

  show(ctx) {
    return { recovery_codes: readCodes(ctx) ?? [] };
  },

  async handle(ctx, body) {
    const saved = body.acknowledged;
    if (!(saved === true || saved === 'true' || saved === '1' || saved === 'on' || saved === 1))
      throw new ValidationError({ acknowledged: factorsMessages.text('recoveryStep.confirm') });
    ctx.request.session.delete(CODES_KEY);
    return true;
  },

  renderFields(ctx): SafeHtml {
    const t = factorsMessages.in(ctx.request.language);
    const codes = readCodes(ctx) ?? [];
    return html`<p>${t('recoveryStep.intro')}</p>
      <ul class="codes" id="recovery-codes">
        ${codes.map((c) => html`<li><code>${c}</code></li>`)}
      </ul>
      <label class="check"
        ><input type="checkbox" name="acknowledged" value="1" required /> ${t('recoveryStep.saved')}</label
      >`;
  },
};
