import type { CitadelServices } from '../services.ts';
import type { RequestContext } from '../request-context.ts';
import type { UserRecord } from '../users.ts';
import type { ActionContext, PipelineAction, PipelinePurpose, SignInResult } from './types.ts';
import { establishSession } from '../sessions.ts';
import { randomToken } from '../../../core/crypto.ts';
import { sweepClaims } from '../claims.ts';
import { canBeActivated } from './activation.ts';
import { AuthenticationRequiredError, ForbiddenError } from '../../../core/errors.ts';
import { credentialStamp } from './credential-stamp.ts';
import { safeEqual } from '../../../core/crypto.ts';
import { readPending, savePending, wipePending, type PendingContext } from './pending.ts';
import { completeAmr, credentialAmr, stepAmr } from './amr.ts';
import { authMessages } from '../messages/index.ts';

export interface BeginSignInOptions {
  purpose: PipelinePurpose;
  remember: boolean;
  /** Actions the sign-in itself already proved (a user-verified passkey is `two_factor`). */
  satisfied?: string[];
  /** The account was created just now by this sign-in (a first social sign-in). */
  newAccount?: boolean;
}

/**
 * The ordered action ids a sign-in has to consider: activation first for an inactive account that
 * can still be activated (login), then the configured ones, then every automatic action
 * (two_factor). Whether each applies is asked when it would become current.
 */
export function plannedActions(
  services: CitadelServices,
  user: UserRecord,
  purpose: PipelinePurpose,
): string[] {
  const { config, actions } = services;
  const ids: string[] = [];
  if (purpose === 'login' && user.active !== 1 && canBeActivated(services)) ids.push('email_activation');
  ids.push(...(purpose === 'register' ? config.registerActions : config.loginActions));
  ids.push(...actions.automatic);
  return [...new Set(ids)];
}

/** The context one action's methods get: its own slice of the pending state. */
export function actionContext(
  request: RequestContext,
  user: UserRecord,
  pending: PendingContext,
  actionId: string,
): ActionContext {
  pending.state[actionId] ??= {};
  return {
    request,
    services: request.services,
    user,
    purpose: pending.purpose,
    state: pending.state[actionId],
    contextId: pending.id,
  };
}

/**
 * Every sign-in path calls this once the user is identified (password checked, link or provider
 * verified). It runs the post-sign-in pipeline: the configured actions, then automatic ones such as
 * two_factor. With nothing pending the session is established at once; otherwise the pending
 * context is stored in the session and the first action is started. Either way what must be
 * written (the session, its events, cookies) is left on `request` for the HTTP adapter to commit.
 */
export async function beginSignIn(
  request: RequestContext,
  user: UserRecord,
  options: BeginSignInOptions,
): Promise<SignInResult> {
  const services = request.services;
  // A new sign-in replaces whatever the session held (another user, an older pending context),
  // with a fresh id so a planted session id never gains the pending state.
  request.session.clear();
  request.caller = null;
  const pending: PendingContext = {
    id: randomToken(16),
    userId: user.id,
    purpose: options.purpose,
    remember: options.remember,
    registration: options.purpose === 'register' || options.newAccount === true,
    current: '',
    remaining: plannedActions(services, user, options.purpose).filter(
      (id) => !options.satisfied?.includes(id),
    ),
    completed: [...(options.satisfied ?? [])],
    state: {},
    failures: 0,
    credentialStamp: credentialStamp(services, user),
    expiresAt: new Date(
      services.clock.now().getTime() + services.config.limits.pendingActionTtl * 1000,
    ).toISOString(),
    amr: credentialAmr(request.path),
  };
  await sweepClaims(services);
  return proceed(request, user, pending, { userReadThisRequest: true });
}

/**
 * The one next-action-or-finish step, used by beginSignIn and after every passed action: start
 * the next action that is pending for this user, or, with none left, sign the user in.
 */
export async function proceed(
  request: RequestContext,
  user: UserRecord,
  pending: PendingContext,
  options: { userReadThisRequest?: boolean } = {},
): Promise<SignInResult> {
  const services = request.services;
  while (pending.remaining.length > 0) {
    const id = pending.remaining.shift()!;
    const action = services.actions.get(id);
    // Configuration is validated at start-up; an unregistered id here is a programming error.
    if (!action) throw new Error(`sign-in action "${id}" is not registered`);
    const ctx = actionContext(request, user, pending, id);
    if (action.isPendingFor && !(await action.isPendingFor(ctx))) {
      delete pending.state[id];
      continue;
    }
    pending.current = id;
    savePending(request.session, pending);
    await action.start?.(ctx);
    savePending(request.session, pending);
    return { signedIn: false, action: id };
  }

  const amr = completeAmr([
    ...(pending.amr ?? []),
    ...pending.completed.flatMap((id) => stepAmr(id, pending.state[id])),
  ]);
  wipePending(request.session);
  // The account may have changed while the actions ran (or never was usable): check it once more,
  // unless it was read in this very request and no action has run since (the loop above only
  // skipped actions that were not pending).
  const fresh = options.userReadThisRequest ? user : await services.users.findById(user.id);
  if (!fresh || fresh.active !== 1) throw new ForbiddenError(authMessages.text('signIn.disabled'));
  await establishSession(request, fresh, {
    remember: pending.remember,
    registration: pending.registration === true,
    amr,
  });
  return { signedIn: true };
}

export interface CurrentStep {
  pending: PendingContext;
  user: UserRecord;
  action: PipelineAction;
  ctx: ActionContext;
}

/**
 * The pending context of this request with its user and current action, or a 401 (redirect_to
 * /login) when there is none, it expired, or its user is gone. Expired contexts are wiped.
 */
export async function requireCurrentStep(request: RequestContext): Promise<CurrentStep> {
  const services = request.services;
  const pending = readPending(request.session);
  if (!pending) throw new AuthenticationRequiredError(authMessages.text('signIn.first'));
  const expired = pending.expiresAt <= services.clock.now().toISOString();
  const user = expired ? undefined : await services.users.findById(pending.userId);
  const action = services.actions.get(pending.current);
  const credentialsChanged =
    user !== undefined && !safeEqual(String(pending.credentialStamp ?? ''), credentialStamp(services, user));
  if (!user || !action || credentialsChanged) {
    wipePending(request.session);
    throw new AuthenticationRequiredError(
      authMessages.text(expired || credentialsChanged ? 'signIn.expired' : 'signIn.first'),
    );
  }
  return { pending, user, action, ctx: actionContext(request, user, pending, action.id) };
}
