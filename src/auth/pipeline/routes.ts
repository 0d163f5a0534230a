import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { respond, renderPage } from '../../http/respond.ts';
import { clientKind } from '../../http/negotiation.ts';
import { publicPath } from '../../http/base-path.ts';
import { NotFoundError, TooManyRequestsError, ValidationError } from '../../core/errors.ts';
import { ProofAttempts } from './attempts.ts';
import { publicUser } from '../core/users.ts';
import { maskEmail, readPending, savePending, wipePending, type PendingContext } from './context.ts';
import { actionContext, proceed, requireCurrentStep } from './runner.ts';
import { html } from '../../http/html.ts';
import { pipelinePage, type PipelinePageProps } from './pages.ts';
import { beginSecondFactorAttempt, proofNotWrong } from '../second-factor-budget.ts';
import { originOf } from '../account-center/events.ts';

const WRONG_PROOF = 'The code is invalid or has expired.';
const TOO_MANY = 'Too many invalid attempts. Please sign in again.';

/**
 * The post-sign-in pipeline: the built-in email actions, the application's custom actions from
 * the configuration, and the /action/* endpoints that walk a pending context to a session.
 */
export async function pipelineRoutes(app: FastifyInstance): Promise<void> {
  const services = app;
  app.get(
    '/action/show',
    { config: { action: 'action.show', page: pipelinePage, pageProps: pipelinePageProps } },
    async (request, reply) => {
      const { pending, user, action, ctx } = await requireCurrentStep(request);
      const extra = (await action.show?.(ctx)) ?? {};
      savePending(request.session, pending);
      return respond(request, reply, {
        action: 'action.show',
        status: 'info',
        message: action.label,
        data: { ...extra, action: action.id, email: maskEmail(user.email) },
        render: true,
      });
    },
  );

  app.post(
    '/action/challenge',
    { config: { action: 'action.challenge', page: pipelinePage, pageProps: pipelinePageProps } },
    async (request, reply) => {
      const { pending, action, ctx } = await requireCurrentStep(request);
      try {
        const data = action.challenge ? await action.challenge(ctx) : undefined;
        savePending(request.session, pending);
        return await respond(request, reply, {
          action: 'action.challenge',
          status: 'info',
          message: action.challenge ? 'A new code is on its way.' : 'This step has nothing to send.',
          data: data ?? undefined,
          redirectTo: '/action/show',
        });
      } catch (error) {
        // A browser asking too soon goes back to the code page with the reason, not to an error page.
        if (error instanceof TooManyRequestsError && clientKind(request) === 'form') {
          request.session.flash('error', error.message);
          return reply
            .header('retry-after', String(error.retryAfter))
            .redirect(publicPath(request, '/action/show'), 303);
        }
        throw error;
      }
    },
  );

  app.post(
    '/action/handle',
    { config: { action: 'action.handle', page: pipelinePage, pageProps: pipelinePageProps } },
    async (request, reply) => {
      const { pending, user, action, ctx } = await requireCurrentStep(request);
      const body =
        request.body && typeof request.body === 'object' && !Array.isArray(request.body)
          ? (request.body as Record<string, unknown>)
          : {};
      const attempts = new ProofAttempts(services, pending);
      if (!(await attempts.begin())) return refuse(request, reply, pending, true);
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
        return refuse(request, reply, pending, pending.failures >= services.config.limits.maxCodeAttempts);
      }

      // A concurrent request already passed this step with the same proof: single use.
      if (!(await attempts.claimPass(action.id))) throw new NotFoundError(WRONG_PROOF);
      await action.complete?.(ctx);
      pending.completed.push(action.id);
      pending.current = '';
      // The action may have changed the account (activation): continue with what is stored now.
      const fresh = (await services.users.findById(user.id)) ?? user;
      const result = await proceed(request, reply, fresh, pending);
      if (!result.signedIn) {
        return respond(request, reply, {
          action: 'action.next',
          status: 'info',
          message: 'Done. One more step is needed.',
          data: { action: result.action },
          redirectTo: '/action/show',
        });
      }
      const signedIn = request.caller?.user ?? fresh;
      return respond(request, reply, {
        action: 'action.success',
        status: 'success',
        message: 'You are signed in.',
        user: publicUser(signedIn),
        redirectTo: '/',
      });
    },
  );

  const cancel = async (request: FastifyRequest, reply: FastifyReply) => {
    wipePending(request.session);
    return respond(request, reply, {
      action: 'action.cancelled',
      status: 'info',
      message: 'Sign-in cancelled.',
      redirectTo: '/login',
    });
  };
  app.post('/action/cancel', { config: { action: 'action.cancelled' } }, cancel);
  app.get('/action/cancel', { config: { action: 'action.cancelled' } }, cancel);
}

/**
 * A wrong proof (or one more than the context has left): 404. Once the wrong proofs reach the
 * limit the context is wiped, so the user has to sign in again.
 */
async function refuse(
  request: FastifyRequest,
  reply: FastifyReply,
  pending: PendingContext,
  exhausted: boolean,
): Promise<FastifyReply> {
  if (exhausted) wipePending(request.session);
  else savePending(request.session, pending);

  if (clientKind(request) === 'form') {
    if (exhausted) {
      request.session.flash('error', TOO_MANY);
      return reply.redirect(publicPath(request, '/login'), 303);
    }
    // The code page again, with the reason, keeping the 404 status of the contract.
    return renderPage(request, reply, pipelinePage, {
      action: 'action.handle',
      status: 'error',
      statusCode: 404,
      message: WRONG_PROOF,
      errors: { code: WRONG_PROOF },
    });
  }
  throw new NotFoundError(exhausted ? TOO_MANY : WRONG_PROOF, exhausted ? { redirectTo: '/login' } : {});
}

/** The pending step's page data: the action renders its own fields from its context. */
async function pipelinePageProps(request: FastifyRequest): Promise<PipelinePageProps> {
  const { actions, users } = request.server;
  const pending = readPending(request.session);
  const action = pending ? actions.get(pending.current) : undefined;
  const user = pending && action ? await users.findById(pending.userId) : undefined;
  if (!pending || !action || !user) return { step: null };
  const fields = action.renderFields
    ? action.renderFields(actionContext(request, user, pending, action.id))
    : html`<p>Continue to finish signing in.</p>`;
  return {
    step: { label: action.label, maskedEmail: maskEmail(user.email), fields, canResend: !!action.challenge },
  };
}
