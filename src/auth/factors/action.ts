import {
  type ActionContext,
  type PipelineAction,
  ValidationError,
  availableFactors,
  findFactor,
  readProof,
} from '../../plugin-api.ts';
import { twoFactorStepFields } from './pages.ts';
import { enrolledAtSignIn } from './registry.ts';
import { factorsMessages } from './messages/index.ts';

async function factorIds(ctx: ActionContext): Promise<string[]> {
  return (await availableFactors(ctx.request, ctx.user, ctx.services.factorRegistry.secondFactors)).map(
    (f) => f.id,
  );
}

/**
 * The `two_factor` sign-in step: pending for every user with an enrolled factor, on every sign-in
 * path (the runner adds automatic actions after the configured ones).
 */
export const twoFactorAction: PipelineAction = {
  id: 'two_factor',
  automatic: true,
  label: factorsMessages.text('action.twoFactor'),

  async isPendingFor(ctx) {
    return (
      (await enrolledAtSignIn(ctx.request, ctx.user)).length > 0 ||
      (await ctx.services.factorRegistry.hasEnrolledPluginFactor(ctx.request, ctx.user))
    );
  },

  async start(ctx) {
    ctx.state.factors = await factorIds(ctx);
  },

  // Passkey request options come with show() (GET /action/show): there is nothing to "send again",
  // so no challenge() and no resend button.
  async show(ctx) {
    const factors = await factorIds(ctx);
    ctx.state.factors = factors;
    const data: Record<string, unknown> = { factors };
    const passkey = findFactor(ctx.services.factorRegistry.secondFactors, 'passkey');
    if (factors.includes('passkey') && passkey)
      data.passkey = await passkey.challenge(ctx.request, ctx.user, 'sign_in');
    return data;
  },

  async handle(ctx, body) {
    const { factor: id, proof } = readProof(body);
    const factor = findFactor(ctx.services.factorRegistry.secondFactors, id);
    if (!factor) throw new ValidationError({ factor: factorsMessages.text('error.unknownFactor') });
    if (!(await factor.isAvailable(ctx.request, ctx.user))) return false;
    const passed = await factor.verify(ctx.request, ctx.user, proof, 'sign_in');
    // Which factor passed: the sign-in's `amr` names it.
    if (passed) ctx.state.proved = id;
    return passed;
  },

  renderFields(ctx) {
    const factors = Array.isArray(ctx.state.factors) ? (ctx.state.factors as string[]) : ['totp'];
    return twoFactorStepFields(
      ctx.request.language,
      factors,
      ctx.services.factorRegistry.pluginFactors(factors),
    );
  },
};
