import type { Session } from '../../../http/sessions/session.ts';
import type { PipelinePurpose } from './types.ts';

/** The session key the spec names: whose pipeline is pending. */
export const PENDING_USER_KEY = 'auth_pending_user_id';
/** The rest of the pending context (actions, per-action state, counters). */
export const PENDING_KEY = 'auth_pending';

/**
 * What is kept in the session while post-sign-in actions are pending. The user is not signed in
 * (session.userId stays null) until the last action passes.
 */
export interface PendingContext {
  /** Random id, for counters kept outside the session (see attempts.ts). */
  id: string;
  userId: number;
  purpose: PipelinePurpose;
  remember: boolean;
  /** The sign-in ends a sign-up (absent in contexts stored before it was kept). */
  registration?: boolean;
  /** The action the user has to pass now ('' before the first one is chosen). */
  current: string;
  /** Actions still to consider after the current one, in order. */
  remaining: string[];
  /** Actions already passed. */
  completed: string[];
  /** Each action's own state, by action id. */
  state: Record<string, Record<string, unknown>>;
  /** Failed proofs so far (all actions of this context together), as last counted. */
  failures: number;
  /** credentialStamp() of the user when the sign-in began; a password change voids the context. */
  credentialStamp: string;
  /** ISO timestamp; the context is void from then on. */
  expiresAt: string;
  /** RFC 8176 methods proved by the first credential (absent in contexts stored before it was kept). */
  amr?: string[];
}

/**
 * The pending context of this session, or undefined. It only counts when it is bound to the same
 * user as `auth_pending_user_id` and nobody is signed in on the session.
 */
export function readPending(session: Session): PendingContext | undefined {
  const pending = session.get<PendingContext>(PENDING_KEY);
  const userId = session.get<number>(PENDING_USER_KEY);
  if (!pending || typeof pending !== 'object' || typeof userId !== 'number') return undefined;
  if (pending.userId !== userId || session.userId !== null) return undefined;
  if (
    typeof pending.id !== 'string' ||
    typeof pending.current !== 'string' ||
    !Array.isArray(pending.remaining)
  )
    return undefined;
  return pending;
}

/** Keeps the sign-in's pending context in the session (the user stays signed out). */
export function savePending(session: Session, pending: PendingContext): void {
  session.set(PENDING_USER_KEY, pending.userId);
  session.set(PENDING_KEY, pending);
}

/** Forgets the session's pending sign-in. */
export function wipePending(session: Session): void {
  session.delete(PENDING_USER_KEY);
  session.delete(PENDING_KEY);
}

/** `alice@example.com` -> `a***@example.com`: enough to recognise, not enough to harvest. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  if (at < 1) return '***';
  return `${email.charAt(0)}***${email.slice(at)}`;
}
