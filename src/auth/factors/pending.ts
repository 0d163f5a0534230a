import { isoAfter, type RequestContext } from '../../plugin-api.ts';

/** How long an enrollment secret or a passkey challenge stays usable in the session. */
const PENDING_TTL_SECONDS = 10 * 60;

interface Pending<T> {
  userId: number;
  expiresAt: string;
  value: T;
}

/**
 * Session-held, user-bound, expiring state: enrollment secrets and WebAuthn challenges. It is only
 * returned to the same user within its lifetime; `take` removes it so it is used at most once.
 */
export function putPending<T>(request: RequestContext, key: string, userId: number, value: T): void {
  const services = request.services;
  const entry: Pending<T> = { userId, expiresAt: isoAfter(services.clock, PENDING_TTL_SECONDS), value };
  request.session.set(key, entry);
}

export function peekPending<T>(request: RequestContext, key: string, userId: number): T | undefined {
  const entry = request.session.get<Pending<T>>(key);
  if (!entry || entry.userId !== userId) return undefined;
  if (entry.expiresAt <= request.services.clock.now().toISOString()) return undefined;
  return entry.value;
}

export function takePending<T>(request: RequestContext, key: string, userId: number): T | undefined {
  const value = peekPending<T>(request, key, userId);
  request.session.delete(key);
  return value;
}
