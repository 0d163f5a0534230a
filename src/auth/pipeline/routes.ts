import { Type } from '@sinclair/typebox';
import {
  NotFoundError,
  TooManyRequestsError,
  ValidationError,
  defineEndpoint,
  type EndpointInput,
  type EndpointResult,
  type RequestContext,
  Envelope,
  publicUser,
  maskEmail,
  readPending,
  savePending,
  wipePending,
  type PendingContext,
  actionContext,
  proceed,
  requireCurrentStep,
  html,
  beginSecondFactorAttempt,
  proofNotWrong,
  originOf,
} from '../../plugin-api.ts';
import { ProofAttempts } from './attempts.ts';
import { pipelinePage, type PipelinePageProps } from './pages.ts';
import { pipelineOptions } from './options.ts';
import { pipelineMessages } from './messages/index.ts';

const WRONG_PROOF = pipelineMessages.text('error.wrongCode');
const TOO_MANY = pipelineMessages.text('error.tooMany');

/** A field of the current step's form, as sent: the action reads and checks it itself. */
const StepField = (description: string) => Type.Optional(Type.Unknown({ 'x-raw': true, description }));

/**
 * The post-sign-in pipeline: the /action/* endpoints that walk a pending context (in the session,
 * before any session user exists) to a session. Each step is an action: the built-in emailed
 * codes, the factors' two_factor, the application's own.
 */
const showStep = defineEndpoint({
  method: 'GET',
  path: '/action/show',
  action: 'action.show',
  auth: 'anonymous',
  summary: 'The pending sign-in step',
  failures: [401],
  responses: {
    200: Envelope({
      // The action's own `show()` data beside its id and the masked address.
      data: Type.Object(
        {
          action: Type.String(),
          email: Type.String({ description: 'The account’s address, masked' }),
          code_sent: Type.Optional(Type.Boolean()),
          code_expires_at: Type.Optional(Type.Union([Type.String(), Type.Null()])),
          factors: Type.Optional(Type.Array(Type.String())),
          passkey: Type.Optional(Type.Unknown({ description: 'Passkey request options' })),
        },
        { additionalProperties: true },
      ),
    }),
  },
  page: pipelinePage,
  pageProps: pipelinePageProps,
  async handler(request) {
    const { pending, user, action, ctx } = await requireCurrentStep(request);
    const extra = (await action.show?.(ctx)) ?? {};
    savePending(request.session, pending);
    return {
      status: 'info',
      message: action.label,
      data: { ...extra, action: action.id, email: maskEmail(user.email) },
      render: true,
    };
  },
});

const challengeStep = defineEndpoint({
  method: 'POST',
  path: '/action/challenge',
  action: 'action.challenge',
  auth: 'anonymous',
  summary: 'Send the pending step’s code again',
  failures: [401, 429],
  responses: {
    200: Envelope({
      data: Type.Optional(
        Type.Object({ code_sent: Type.Optional(Type.Boolean()) }, { additionalProperties: true }),
      ),
    }),
  },
  page: pipelinePage,
  pageProps: pipelinePageProps,
  async handler(request) {
    const { pending, action, ctx } = await requireCurrentStep(request);
    try {
      const data = action.challenge ? await action.challenge(ctx) : undefined;
      savePending(request.session, pending);
      return {
        status: 'info',
        message: pipelineMessages.text(action.challenge ? 'answer.newCode' : 'answer.nothingToSend'),
        data: data ?? undefined,
        redirect_to: '/action/show',
      };
    } catch (error) {
      // A browser asking too soon goes back to the code page with the reason, not to an error page.
      if (error instanceof TooManyRequestsError && request.client === 'form') {
        return {
          status: 'error',
          message: error.text,
          redirect_to: '/action/show',
          headers: { 'retry-after': String(error.retryAfter) },
        };
      }
      throw error;
    }
  },
});

const handleStep = defineEndpoint({
  method: 'POST',
  path: '/action/handle',
  action: 'action.handle',
  auth: 'anonymous',
  summary: 'Prove the pending step (an emailed code, a second factor, the action’s own fields)',
  // The current action's fields: declared for the built-in ones, any other passed on to the action.
  body: Type.Object(
    {
      code: StepField('An emailed code, or an authenticator code (totp implied)'),
      factor: StepField('two_factor: the factor proved'),
      proof: StepField('two_factor: the code, recovery code or passkey assertion'),
    },
    { additionalProperties: Type.Unknown({ 'x-raw': true }) },
  ),
  failures: [401, 403, 404, 429],
  responses: {
    // `action.next` (one more step: data.action) or `action.success` (signed in: user).
    200: Envelope({
      user: 'optional',
      data: Type.Optional(Type.Object({ action: Type.String() })),
    }),
  },
  page: pipelinePage,
  pageProps: pipelinePageProps,
  async handler(request) {
    const { body, services } = request;
    const { pending, user, action, ctx } = await requireCurrentStep(request);
    const attempts = new ProofAttempts(services, pending);
    if (!(await attempts.begin())) return refuse(request, pending, true);
    await beginSecondFactorAttempt(services, user, originOf(request));
    let passed: boolean;
    try {
      passed = await action.handle(ctx, body);
    } catch (error) {
      if (error instanceof ValidationError) {
        await attempts.malformed();
        await proofNotWrong(services, user.id);
      }
      throw error;
    } finally {
      savePending(request.session, pending);
    }
    if (passed) await proofNotWrong(services, user.id);
    else {
      pending.failures = await attempts.failures();
      return refuse(request, pending, pending.failures >= pipelineOptions(services).maxCodeAttempts);
    }

    // A concurrent request already passed this step with the same proof: single use.
    if (!(await attempts.claimPass(action.id))) throw new NotFoundError(WRONG_PROOF);
    await action.complete?.(ctx);
    pending.completed.push(action.id);
    pending.current = '';
    // The action may have changed the account (activation): continue with what is stored now.
    const fresh = (await services.users.findById(user.id)) ?? user;
    const result = await proceed(request, fresh, pending);
    // Either answer has its own action (not `action.handle`).
    if (!result.signedIn) {
      return {
        action: 'action.next',
        status: 'info',
        message: pipelineMessages.text('answer.nextStep'),
        data: { action: result.action },
        redirect_to: '/action/show',
      };
    }
    const signedIn = request.caller?.user ?? fresh;
    return {
      action: 'action.success',
      status: 'success',
      message: pipelineMessages.text('answer.signedIn'),
      user: publicUser(signedIn),
      redirect_to: '/',
    };
  },
});

const cancelSignIn = defineEndpoint({
  method: 'POST',
  path: '/action/cancel',
  aliases: [{ method: 'GET', path: '/action/cancel' }],
  action: 'action.cancelled',
  auth: 'anonymous',
  summary: 'Give up the pending sign-in',
  responses: { 200: Envelope() },
  async handler(request) {
    wipePending(request.session);
    return { status: 'info', message: pipelineMessages.text('answer.cancelled'), redirect_to: '/login' };
  },
});

/** The /action/* endpoints of the post-sign-in pipeline. */
export const pipelineEndpoints = [showStep, challengeStep, handleStep, cancelSignIn] as const;

/**
 * A wrong proof (or one more than the context has left): 404. Once the wrong proofs reach the
 * limit the context is wiped, so the user has to sign in again.
 */
async function refuse(
  request: RequestContext,
  pending: PendingContext,
  exhausted: boolean,
): Promise<EndpointResult> {
  if (exhausted) wipePending(request.session);
  else savePending(request.session, pending);

  if (request.client === 'form') {
    // Back to the sign-in form with the reason.
    if (exhausted) return { status: 'error', message: TOO_MANY, redirect_to: '/login' };
    // The code page again, with the reason, keeping the code page's 404 status.
    return {
      status: 'error',
      statusCode: 404,
      message: WRONG_PROOF,
      errors: { code: WRONG_PROOF },
      render: true,
    };
  }
  throw new NotFoundError(exhausted ? TOO_MANY : WRONG_PROOF, exhausted ? { redirectTo: '/login' } : {});
}

/** The pending step's page data: the action renders its own fields from its context. */
async function pipelinePageProps(request: EndpointInput): Promise<PipelinePageProps> {
  const { services } = request;
  const { actions, users } = services;
  const pending = readPending(request.session);
  const action = pending ? actions.get(pending.current) : undefined;
  const user = pending && action ? await users.findById(pending.userId) : undefined;
  if (!pending || !action || !user) return { step: null };
  const fields = action.renderFields
    ? action.renderFields(actionContext(request, user, pending, action.id))
    : html`<p>${pipelineMessages.in(request.language)('page.continueToFinish')}</p>`;
  return {
    step: { label: action.label, maskedEmail: maskEmail(user.email), fields, canResend: !!action.challenge },
  };
}
