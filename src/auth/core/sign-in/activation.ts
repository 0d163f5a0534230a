import type { CitadelServices } from '../services.ts';
import type { UserRecord } from '../users.ts';
import { ForbiddenError } from '../../../core/errors.ts';

/** A disabled account may sign in only to finish its activation (when activation is configured). */
export function assertMaySignIn(services: CitadelServices, user: UserRecord): void {
  if (user.active !== 1 && !canBeActivated(services)) throw new ForbiddenError('This account is disabled.');
}

/** With email activation configured, an inactive account is one that has not finished activating. */
export function canBeActivated(services: CitadelServices): boolean {
  const { registerActions, loginActions } = services.config;
  return registerActions.includes('email_activation') || loginActions.includes('email_activation');
}
