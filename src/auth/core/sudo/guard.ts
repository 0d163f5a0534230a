import type { FastifyReply, FastifyRequest } from 'fastify';
import { AuthenticationRequiredError, ForbiddenError } from '../../../core/errors.ts';
import { clientKind } from '../../../http/negotiation.ts';
import { activeSudo } from './state.ts';
import { sudoFactorsFor } from './eligible.ts';
import { safeNext } from './next.ts';
import { mountedPath } from '../../../http/base-path.ts';
import { saveInputForPage } from '../../../http/respond.ts';

/** True when the request's session user holds unexpired sudo for that same user. */
export async function isSudoActive(request: FastifyRequest): Promise<boolean> {
  if (!request.caller || request.caller.via !== 'session' || request.caller.impersonator) return false;
  return activeSudo(request) !== null;
}

/**
 * Route preHandler for sensitive operations. No caller: 401. Bearer-token callers pass (their
 * abilities are their permissions). Session callers need active sudo, else 403 `sudo.required`;
 * form clients are sent to /sudo?next=<this path> and come back after proving a factor.
 */
export async function requireSudo(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
  const caller = request.caller;
  if (!caller) throw new AuthenticationRequiredError();
  if (caller.via === 'token') return;
  // A plugin's bearer credential (a service token) never confirms sudo; nor does an administrator
  // acting as someone else (contract section 18).
  if (caller.via === 'bearer')
    throw new ForbiddenError('This credential cannot be used for this operation.', {
      action: 'sudo.refused',
    });
  if (caller.impersonator)
    throw new ForbiddenError('Not available while acting as another user.', { action: 'sudo.refused' });
  if (activeSudo(request)) return;

  const factors = await sudoFactorsFor(request, caller.user);
  // Forms come back to the page they were on: a GET target is itself, a POST goes back to where it came from.
  let redirectTo = '/sudo';
  if (clientKind(request) === 'form') {
    const from = request.method === 'GET' ? request.url : refererPath(request);
    const next = safeNext(from === null ? null : mountedPath(request, from));
    if (next) {
      redirectTo = `/sudo?next=${encodeURIComponent(next)}`;
      // What was typed survives the detour: the page refills it once (never passwords or codes).
      if (request.method === 'POST') saveInputForPage(request, next, caller.user.id);
    }
  }
  throw new ForbiddenError('Please confirm your identity to continue.', {
    action: 'sudo.required',
    redirectTo,
    data: { factors },
  });
}

/** The same-origin Referer's path, for returning a form POST to its page. */
function refererPath(request: FastifyRequest): string | null {
  const referer = request.headers.referer;
  if (!referer) return null;
  try {
    const url = new URL(referer);
    const app = new URL(request.server.config.appUrl);
    if (url.origin !== app.origin) return null;
    return url.pathname + url.search;
  } catch {
    return null;
  }
}
