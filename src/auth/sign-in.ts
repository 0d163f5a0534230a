import type { FastifyReply, FastifyRequest } from 'fastify';
import type { UserRecord } from './users.ts';
import { setRememberCookie } from '../http/sessions/plugin.ts';
import { REMEMBER_COOKIE } from './accounts/remember.ts';

export interface EstablishOptions {
  remember: boolean;
}

/**
 * The last step of every sign-in path (password, magic link, social, finished pipeline): a fresh
 * session id for this user with nothing carried over from before (no pending context, no sudo
 * from another account), the remember-me cookie if asked for, then the sign-in listeners.
 */
export async function establishSession(
  request: FastifyRequest,
  reply: FastifyReply,
  user: UserRecord,
  options: EstablishOptions,
): Promise<void> {
  const services = request.server.citadel;
  request.session.clear();
  request.session.setUser(user.id);
  request.caller = { via: 'session', user, token: null };
  // One remember-me row per device: a sign-in replaces whatever token this browser held before
  // (possibly another account's), so no orphaned row can sign the browser back in later.
  const previous = request.cookies[REMEMBER_COOKIE];
  if (previous) await services.remember.revoke(previous);
  const issued = options.remember ? await services.remember.issue(user.id) : undefined;
  if (issued) setRememberCookie(request, reply, issued);
  else if (previous) setRememberCookie(request, reply, null);
  const info = { method: 'sign_in' as const, rememberSelector: issued?.value.split(':')[0] };
  for (const listener of services.signedInListeners) await listener(request, user, info);
}

/** Sign-out: the session, this device's remember-me token and every session-bound state end. */
export async function endSession(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const remember = request.cookies[REMEMBER_COOKIE];
  if (remember) await request.server.citadel.remember.revoke(remember);
  setRememberCookie(request, reply, null);
  request.session.clear();
  request.caller = null;
}
