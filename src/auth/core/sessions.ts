import type { UserRecord } from './users.ts';
import { REMEMBER_COOKIE, type RememberCookie } from './remember.ts';
import type { SignedInEvent, SignedInInfo } from './plugin.ts';
import { setCookie, type RequestContext } from './request-context.ts';
import { originOf, sessionEvent, type EventDetail } from './security-events.ts';
import { describeDevice } from './device.ts';

export interface EstablishOptions {
  /** Issue a new remember-me cookie (a sign-in form's "remember me"). */
  remember: boolean;
  /** The account was created by this sign-up (told to the sign-in listeners). */
  registration?: boolean;
  /** RFC 8176 methods the sign-in proved (`request.signInAmr` for the sign-in listeners). */
  amr?: readonly string[];
}

/** Set the remember-me cookie (or clear it with null). */
export function setRememberCookie(request: RequestContext, value: RememberCookie | null) {
  if (value) setCookie(request, REMEMBER_COOKIE, value.value, value.maxAge);
  else setCookie(request, REMEMBER_COOKIE, null);
}

/**
 * A fresh session id for this user, nothing carried over, then the sign-in listeners, then the
 * `sign_in` security event. What it writes (the session, the event, the listeners' rows and
 * cookies) is left on the request for the HTTP adapter, which commits it in one transaction
 * before the answer.
 */
async function startSession(request: RequestContext, user: UserRecord, info: SignedInInfo): Promise<void> {
  const { session } = request;
  session.clear();
  session.setUser(user.id);
  request.caller = { via: 'session', user, token: null };
  const signInDetail: EventDetail = {
    device: describeDevice(request.userAgent),
    method: info.method,
    remembered: info.rememberSelector !== undefined,
    ...(info.registration ? { registration: true } : {}),
  };
  const effects: (() => void)[] = [];
  const event: SignedInEvent = {
    user,
    info,
    request,
    setCookie: (name, value, maxAge) => setCookie(request, name, value, maxAge),
    record: (row) => session.alongWithSave(row),
    signInDetail,
    afterCommit: (effect) => void effects.push(effect),
  };
  for (const listener of request.services.signInListeners) await listener(event);
  // The one `sign_in` row of this sign-in, with what the listeners added to its detail; it
  // commits with the new session.
  const signIn = { userId: user.id, type: 'sign_in' as const, ...originOf(request), detail: signInDetail };
  session.alongWithSave(
    sessionEvent(request.services.clock, signIn, () => {
      for (const effect of effects) effect();
    }),
  );
}

/**
 * The last step of every sign-in path (password, magic link, social, finished pipeline): a fresh
 * session id for this user with nothing carried over from before (no pending context, no sudo
 * from another account), the remember-me cookie if asked for, then the sign-in listeners.
 */
export async function establishSession(
  request: RequestContext,
  user: UserRecord,
  options: EstablishOptions,
): Promise<void> {
  const { remember } = request.services;
  // One remember-me row per device: a sign-in replaces whatever token this browser held before
  // (possibly another account's), so no orphaned row can sign the browser back in later.
  const previous = request.cookies[REMEMBER_COOKIE];
  if (previous) await remember.revoke(previous);
  const issued = options.remember ? await remember.issue(user.id) : undefined;
  request.signInAmr = options.amr ?? [];
  if (issued) setRememberCookie(request, issued);
  else if (previous) setRememberCookie(request, null);
  await startSession(request, user, {
    method: 'sign_in',
    rememberSelector: issued?.value.split(':')[0],
    ...(options.registration ? { registration: true } : {}),
  });
}

/**
 * A remember-me cookie signs the browser back in when its session has ended; it is rotated on use.
 * Runs before the caller is resolved, only for cookie requests without a signed-in session.
 */
export async function restoreRememberedSession(request: RequestContext): Promise<void> {
  const cookie = request.cookies[REMEMBER_COOKIE];
  if (!cookie || request.session.userId !== null || request.authorization) return;
  const { remember, users } = request.services;
  const restored = await remember.consume(cookie);
  // A concurrent request of the same browser rotated the cookie first: leave the new one alone.
  if (restored === 'superseded') return;
  const user = restored ? await users.findById(restored.userId) : undefined;
  if (!restored || !user || user.active !== 1) {
    setRememberCookie(request, null);
    return;
  }
  setRememberCookie(request, restored.cookie);
  await startSession(request, user, {
    method: 'remember',
    rememberSelector: restored.cookie.value.split(':')[0],
  });
}

/** Sign-out: the session, this device's remember-me token and every session-bound state end. */
export async function endSession(request: RequestContext): Promise<void> {
  const remember = request.cookies[REMEMBER_COOKIE];
  if (remember) await request.services.remember.revoke(remember);
  setRememberCookie(request, null);
  request.session.noteEnd({ ip: request.ip, userAgent: request.userAgent });
  request.session.clear();
  request.caller = null;
}
