import { isoAfter } from '../../../core/clock.ts';
import type { RequestContext } from '../request-context.ts';

/** The session key holding sudo: bound to one user id and a server-fixed expiry. */
export const SUDO_KEY = 'sudo';

export interface SudoState {
  userId: number;
  expiresAt: string;
}

/** The current sudo state if it belongs to the session's user and has not expired. */
export function activeSudo(request: RequestContext): SudoState | null {
  const state = request.session.get<SudoState>(SUDO_KEY);
  const userId = request.session.userId;
  if (!state || userId === null || state.userId !== userId) return null;
  const now = request.services.clock.now().toISOString();
  if (typeof state.expiresAt !== 'string' || state.expiresAt <= now) return null;
  return state;
}

/**
 * Elevate the session's user for `ttlSeconds` (the sudo plugin's `ttlSeconds`, SUDO_TTL; never
 * client-chosen). The session id changes so an id observed before elevation cannot ride on it.
 */
export function grantSudo(request: RequestContext, userId: number, ttlSeconds: number): SudoState {
  const services = request.services;
  const state: SudoState = { userId, expiresAt: isoAfter(services.clock, ttlSeconds) };
  request.session.set(SUDO_KEY, state);
  request.session.regenerate();
  return state;
}

/** Ends the session's sudo mode. */
export function endSudo(request: RequestContext): void {
  request.session.delete(SUDO_KEY);
}
