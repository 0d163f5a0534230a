import type { FastifyReply, FastifyRequest } from 'fastify';
import type { UserRecord } from './users.ts';
import { cookieOptions } from '../../http/sessions/plugin.ts';
import { REMEMBER_COOKIE, type RememberCookie } from './remember.ts';
import type { SignedInInfo } from '../../plugin.ts';

export interface EstablishOptions {
  /** Issue a new remember-me cookie (a sign-in form's "remember me"). */
  remember: boolean;
  /** The account was created by this sign-up (told to the sign-in listeners). */
  registration?: boolean;
}

/** Set the remember-me cookie (or clear it with null). */
export function setRememberCookie(
  request: FastifyRequest,
  reply: FastifyReply,
  value: RememberCookie | null,
) {
  const secure = request.server.config.secureCookies;
  if (value) reply.setCookie(REMEMBER_COOKIE, value.value, cookieOptions(secure, value.maxAge));
  else reply.clearCookie(REMEMBER_COOKIE, cookieOptions(secure));
}

/** A fresh session id for this user, nothing carried over, then the sign-in listeners. */
async function startSession(
  request: FastifyRequest,
  reply: FastifyReply,
  user: UserRecord,
  info: SignedInInfo,
): Promise<void> {
  request.session.clear();
  request.session.setUser(user.id);
  request.caller = { via: 'session', user, token: null };
  for (const listener of request.server.signInListeners) await listener(request, user, info, reply);
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
  const { remember } = request.server;
  // One remember-me row per device: a sign-in replaces whatever token this browser held before
  // (possibly another account's), so no orphaned row can sign the browser back in later.
  const previous = request.cookies[REMEMBER_COOKIE];
  if (previous) await remember.revoke(previous);
  const issued = options.remember ? await remember.issue(user.id) : undefined;
  if (issued) setRememberCookie(request, reply, issued);
  else if (previous) setRememberCookie(request, reply, null);
  await startSession(request, reply, user, {
    method: 'sign_in',
    rememberSelector: issued?.value.split(':')[0],
    ...(options.registration ? { registration: true } : {}),
  });
}

/**
 * A remember-me cookie signs the browser back in when its session has ended; it is rotated on use.
 * Runs before the caller is resolved, only for cookie requests without a signed-in session.
 */
export async function restoreRememberedSession(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const cookie = request.cookies[REMEMBER_COOKIE];
  if (!cookie || request.session.userId !== null || request.headers.authorization) return;
  const { remember, users } = request.server;
  const restored = await remember.consume(cookie);
  // A concurrent request of the same browser rotated the cookie first: leave the new one alone.
  if (restored === 'superseded') return;
  const user = restored ? await users.findById(restored.userId) : undefined;
  if (!restored || !user || user.active !== 1) {
    setRememberCookie(request, reply, null);
    return;
  }
  setRememberCookie(request, reply, restored.cookie);
  await startSession(request, reply, user, {
    method: 'remember',
    rememberSelector: restored.cookie.value.split(':')[0],
  });
}

/** Sign-out: the session, this device's remember-me token and every session-bound state end. */
export async function endSession(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const remember = request.cookies[REMEMBER_COOKIE];
  if (remember) await request.server.remember.revoke(remember);
  setRememberCookie(request, reply, null);
  request.session.clear();
  request.caller = null;
}
