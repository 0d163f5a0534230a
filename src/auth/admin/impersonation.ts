import {
  SUDO_KEY,
  originOf,
  sessionEvent,
  isAdmin,
  isDisabled,
  type UserRecord,
  type RequestContext,
  type SessionEndWatcher,
} from '../../plugin-api.ts';

/** Kept in the session while an administrator acts as another user. */
export const IMPERSONATION_KEY = 'impersonation';

export interface ImpersonationState {
  adminId: number;
  adminUsername: string;
  userId: number;
  expiresAt: string;
}

export function impersonationOf(request: RequestContext): ImpersonationState | undefined {
  return request.session.get<ImpersonationState>(IMPERSONATION_KEY);
}

/**
 * The administrator's session now acts as `target` (a fresh session id; sudo does not carry over),
 * until `expiresAt`. The event commits with the session write.
 */
export function startImpersonation(
  request: RequestContext,
  admin: UserRecord,
  target: UserRecord,
  minutes: number,
): ImpersonationState {
  const { clock } = request.services;
  const state: ImpersonationState = {
    adminId: admin.id,
    adminUsername: admin.username,
    userId: target.id,
    expiresAt: new Date(clock.now().getTime() + minutes * 60_000).toISOString(),
  };
  const session = request.session;
  session.delete(SUDO_KEY);
  session.setUser(target.id);
  session.set(IMPERSONATION_KEY, state);
  session.alongWithSave(
    sessionEvent(clock, {
      userId: target.id,
      type: 'impersonation_started',
      ...originOf(request),
      detail: { admin_id: admin.id, until: state.expiresAt },
    }),
  );
  return state;
}

/** Why an impersonation ended, as its `impersonation_ended` event says. */
export type ImpersonationEndReason = 'stopped' | 'signed_out' | 'expired';

/**
 * `impersonation_ended`, recorded by whatever removes the impersonating session's row, so once
 * per impersonation however it ends (two stops at once, a stop racing a revocation): stop and the
 * time running out on a request say so (`Session.noteEnd`); the session removed otherwise (sign-out,
 * revoked from another session, the user signed out or disabled by an administrator, a password
 * reset, a sign-in over it) is `signed_out`, or `expired` once its time or the session's idle time
 * is over.
 */
export const impersonationEndWatcher: SessionEndWatcher = {
  key: IMPERSONATION_KEY,
  ended({ data, cause, note }, clock) {
    const state = data[IMPERSONATION_KEY] as ImpersonationState | undefined;
    if (!state || typeof state.userId !== 'number') return [];
    const over = cause === 'expired' || state.expiresAt <= clock.now().toISOString();
    const noted = note?.reason as ImpersonationEndReason | undefined;
    const reason: ImpersonationEndReason = noted ?? (over ? 'expired' : 'signed_out');
    return [
      sessionEvent(clock, {
        userId: state.userId,
        type: 'impersonation_ended',
        ip: note?.ip ?? null,
        userAgent: note?.userAgent ?? null,
        detail: { admin_id: state.adminId, reason },
      }),
    ];
  },
};

/**
 * Back to the administrator (stop, or the 30 minutes are over): the session becomes theirs again
 * (a new id: the impersonating session's row goes, and with it the event) when they still are an
 * active admin, else it ends. Returns the administrator, or null.
 */
export async function endImpersonation(
  request: RequestContext,
  state: ImpersonationState,
  reason: 'stopped' | 'expired',
): Promise<UserRecord | null> {
  const { users, clock } = request.services;
  const session = request.session;
  session.noteEnd({ reason, ...originOf(request) });
  const admin = await users.findById(state.adminId);
  const now = clock.now().toISOString();
  if (!admin || admin.active !== 1 || isDisabled(admin, now) || !isAdmin(admin)) {
    session.clear();
    return null;
  }
  session.delete(IMPERSONATION_KEY);
  session.delete(SUDO_KEY);
  session.setUser(admin.id);
  return admin;
}

/**
 * Every request (the plugin's `request` listener): a session acting as someone else is marked
 * (`caller.impersonator`), or returned to the administrator once its time is over.
 */
export function markImpersonation(request: RequestContext): void | Promise<void> {
  const state = impersonationOf(request);
  // No promise when there is nothing to do (the request pipeline's fast path).
  if (!state) return;
  return markOrEnd(request, state);
}

async function markOrEnd(request: RequestContext, state: ImpersonationState): Promise<void> {
  const caller = request.caller;
  const now = request.services.clock.now().toISOString();
  if (caller?.via === 'session' && caller.user.id === state.userId && state.expiresAt > now) {
    request.caller = { ...caller, impersonator: { id: state.adminId, username: state.adminUsername } };
    return;
  }
  if (caller && caller.via !== 'session') return;
  // Over (or the session no longer is the user's): the administrator's own session again.
  const admin = await endImpersonation(request, state, 'expired');
  request.caller = admin ? { via: 'session', user: admin, token: null } : null;
}
