import { randomInt } from 'node:crypto';
import {
  type ActionContext,
  type PipelineAction,
  safeEqual,
  TooManyRequestsError,
  ValidationError,
  html,
  claimOnce,
  type LocalText,
} from '../../plugin-api.ts';
import { pipelineOptions } from './options.ts';
import { pipelineMessages } from './messages/index.ts';

const HMAC_PURPOSE = 'action-code';
const CODE_FORMAT = /^\d{6}$/;

/** What a code action keeps in its state: never the code itself, only its HMAC. */
interface CodeState {
  codeHash?: string;
  expiresAt?: string;
  sentAt?: string;
}

/** 000000-999999 from the CSPRNG, every value equally likely. */
export function generateCode(): string {
  return String(randomInt(0, 1_000_000)).padStart(6, '0');
}

interface EmailCodeOptions {
  id: string;
  /** The message kind (its props and replacement: `emails.<kind>`). */
  email: 'signInCode' | 'activationCode';
  label: LocalText;
  subject: LocalText;
  intro: (username: string) => LocalText;
  /** Runs after the right code, before the next action (activation). */
  complete?: (ctx: ActionContext) => Promise<void>;
  isPendingFor?: (ctx: ActionContext) => boolean | Promise<boolean>;
}

async function sendCode(ctx: ActionContext, options: EmailCodeOptions): Promise<void> {
  const { services, user } = ctx;
  const now = services.clock.now();
  const code = generateCode();
  const state = ctx.state as CodeState;
  // Replacing the HMAC invalidates any code sent before.
  state.codeHash = services.secrets.hmac(HMAC_PURPOSE, code);
  state.expiresAt = new Date(now.getTime() + pipelineOptions(services).codeTtlSeconds * 1000).toISOString();
  state.sentAt = now.toISOString();
  const minutes = Math.round(pipelineOptions(services).codeTtlSeconds / 60);
  await services.emails.send(
    options.email,
    {
      to: user.email,
      username: user.username,
      code,
      expiresInMinutes: minutes,
      locale: user.locale ?? ctx.request.language.locale,
    },
    (props, language) => ({
      subject: options.subject.in(language),
      intro: options.intro(props.username).in(language),
      code: props.code,
      outro: pipelineMessages.in(language)('mail.outro', { minutes: props.expiresInMinutes }),
    }),
  );
}

/**
 * An action proved by a 6-digit code sent to the account's address: emailed when it starts, a fresh
 * one (replacing the old) at most every `codeResendIntervalSeconds`, valid `codeTtlSeconds` (the
 * pipeline plugin's options), single use.
 */
export function emailCodeAction(options: EmailCodeOptions): PipelineAction {
  return {
    id: options.id,
    label: options.label,
    isPendingFor: options.isPendingFor,
    async start(ctx) {
      await sendCode(ctx, options);
    },
    show(ctx) {
      const state = ctx.state as CodeState;
      return { code_sent: state.codeHash !== undefined, code_expires_at: state.expiresAt ?? null };
    },
    async challenge(ctx) {
      const state = ctx.state as CodeState;
      const { clock, config } = ctx.services;
      const resendInterval = pipelineOptions(ctx.services).codeResendIntervalSeconds;
      if (state.sentAt) {
        const wait = new Date(state.sentAt).getTime() + resendInterval * 1000 - clock.now().getTime();
        if (wait > 0) throw new TooManyRequestsError(wait / 1000, pipelineMessages.text('code.wait'));
      }
      // Concurrent resends all saw the same last send: only the first to claim it sends again.
      const first = await claimOnce(
        ctx.services,
        `pipeline:${ctx.contextId}:${options.id}:resend:${state.sentAt ?? 'none'}`,
        config.limits.pendingActionTtl,
      );
      if (!first) throw new TooManyRequestsError(resendInterval, pipelineMessages.text('code.wait'));
      await sendCode(ctx, options);
      return { code_sent: true };
    },
    async handle(ctx, body) {
      const raw = body.code ?? body.token;
      const code = typeof raw === 'string' || typeof raw === 'number' ? String(raw).trim() : '';
      if (code === '') throw new ValidationError({ code: pipelineMessages.text('code.required') });
      if (!CODE_FORMAT.test(code)) throw new ValidationError({ code: pipelineMessages.text('code.format') });
      const state = ctx.state as CodeState;
      const { secrets, clock } = ctx.services;
      if (!state.codeHash || !state.expiresAt) return false;
      const matches = safeEqual(secrets.hmac(HMAC_PURPOSE, code), state.codeHash);
      if (!matches || state.expiresAt <= clock.now().toISOString()) return false;
      // Single use: the HMAC goes as soon as it has matched.
      delete state.codeHash;
      delete state.expiresAt;
      return true;
    },
    complete: options.complete,
    renderFields(ctx) {
      const t = pipelineMessages.in(ctx.request.language);
      return html`<label for="field-code">${t('code.label')}</label>
        <input
          id="field-code"
          name="code"
          type="text"
          inputmode="numeric"
          autocomplete="one-time-code"
          pattern="[0-9]{6}"
          maxlength="6"
          required
        />`;
    },
  };
}

/** email_2fa: a code to the account's address on every sign-in. */
export const email2faAction = emailCodeAction({
  id: 'email_2fa',
  email: 'signInCode',
  label: pipelineMessages.text('email2fa.label'),
  subject: pipelineMessages.text('email2fa.subject'),
  intro: (username) => pipelineMessages.text('email2fa.intro', { username }),
  // The code was read in the account's mailbox.
  complete: (ctx) => ctx.services.users.markEmailVerified(ctx.user.id),
});

/**
 * email_activation: proves the address of a new (inactive) account and activates it. Pending only
 * while the account is inactive, so an active user is never asked.
 */
export const emailActivationAction = emailCodeAction({
  id: 'email_activation',
  email: 'activationCode',
  label: pipelineMessages.text('activation.label'),
  subject: pipelineMessages.text('activation.subject'),
  intro: (username) => pipelineMessages.text('activation.intro', { username }),
  isPendingFor: (ctx) => ctx.user.active !== 1,
  async complete(ctx) {
    await ctx.services.users.setActive(ctx.user.id, true);
    await ctx.services.users.markEmailVerified(ctx.user.id);
  },
});
