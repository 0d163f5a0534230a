import type { CitadelServices } from '../services.ts';
import { isDisabled, type UserRecord } from '../users.ts';
import { ForbiddenError } from '../../../core/errors.ts';
import { authMessages } from '../messages/index.ts';

/**
 * An account an administrator disabled may not sign in (403 `login.disabled`) until enabled or
 * until its `disabled_until` passes; an inactive account only to finish its activation (when
 * activation is configured). Both read the user row the sign-in already has: no statement.
 */
export function assertMaySignIn(services: CitadelServices, user: UserRecord): void {
  if (isDisabled(user, services.clock.now().toISOString()))
    throw new ForbiddenError(authMessages.text('signIn.disabledByAdmin'), {
      action: 'login.disabled',
    });
  if (user.active !== 1 && !canBeActivated(services))
    throw new ForbiddenError(authMessages.text('signIn.disabled'));
}

/** With email activation configured, an inactive account is one that has not finished activating. */
export function canBeActivated(services: CitadelServices): boolean {
  const { registerActions, loginActions } = services.config;
  return registerActions.includes('email_activation') || loginActions.includes('email_activation');
}
