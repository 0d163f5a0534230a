import {
  AuthenticationRequiredError,
  ForbiddenError,
  ImpersonationForbiddenError,
} from '../../../core/errors.ts';
import { activeSudo } from './state.ts';
import { sudoFactorsFor } from './eligible.ts';
import { safeNext } from './next.ts';
import { saveInput } from '../../../http/response/respond.ts';
import type { RequestContext } from '../request-context.ts';
import { authMessages } from '../messages/index.ts';

/** True when the request's session user holds unexpired sudo for that same user. */
export async function isSudoActive(request: RequestContext): Promise<boolean> {
  if (!request.caller || request.caller.via !== 'session' || request.caller.impersonator) return false;
  return activeSudo(request) !== null;
}

/**
 * The check of sensitive operations (the `sudo` endpoints' access rule). No caller: 401. Bearer-token callers pass (their
 * abilities are their permissions). Session callers need active sudo, else 403 `sudo.required`;
 * form clients are sent to /sudo?next=<this path> and come back after proving a factor (to
 * `returnTo` when given: a page that offers the refused POST again, ready to confirm).
 */
export async function requireSudo(request: RequestContext, returnTo?: string): Promise<void> {
  const caller = request.caller;
  if (!caller) throw new AuthenticationRequiredError();
  if (caller.via === 'token') return;
  // A plugin's bearer credential (a service token) never confirms sudo; nor does an administrator
  // acting as someone else.
  if (caller.via === 'bearer')
    throw new ForbiddenError(authMessages.text('sudo.wrongCredential'), {
      action: 'sudo.refused',
    });
  if (caller.impersonator) throw new ImpersonationForbiddenError();
  if (activeSudo(request)) return;

  const factors = await sudoFactorsFor(request, caller.user);
  // Forms come back to the page they were on: a GET target is itself, a POST goes back to where it came from.
  let redirectTo = '/sudo';
  if (request.client === 'form') {
    const next = safeNext(returnTo ?? request.returnPath);
    if (next) {
      redirectTo = `/sudo?next=${encodeURIComponent(next)}`;
      // What was typed survives the detour: the page refills it once (never passwords or codes).
      if (request.method === 'POST')
        saveInput(request.session, next, caller.user.id, request.refillableInput);
    }
  }
  throw new ForbiddenError(authMessages.text('sudo.required'), {
    action: 'sudo.required',
    redirectTo,
    data: { factors },
  });
}
