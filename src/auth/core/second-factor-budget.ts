import type { CitadelServices } from './services.ts';
import type { UserRecord } from './users.ts';
import { recordSecurityEvent, type EventOrigin } from './security-events.ts';
import { notify } from './notify.ts';
import { claimOnce } from './claims.ts';
import { FailureBudget } from './failure-budget.ts';

/**
 * Second-factor guesses (TOTP, emailed codes, recovery codes, sudo proofs) are counted
 * per account across every pending context and session: at most 10 wrong proofs per hour, then 429.
 * A new sign-in (a correct password) opens a new context but not a new budget.
 */
export const SECOND_FACTOR_FAILURES_PER_ACCOUNT = 10;
export const SECOND_FACTOR_WINDOW = 3600;

function budget(services: CitadelServices): FailureBudget {
  return new FailureBudget(services, '2fa:account', SECOND_FACTOR_FAILURES_PER_ACCOUNT, SECOND_FACTOR_WINDOW);
}

/**
 * Called when the account goes over its budget, once per window (a claim): the
 * `second_factor_locked` security event and its notification (NOTIFY_EVENTS can turn
 * the mail off). Neither may turn the 429 into an error.
 */
export async function onSecondFactorLocked(
  services: CitadelServices,
  user: UserRecord,
  windowKey: string,
  origin: EventOrigin = { ip: null, userAgent: null },
): Promise<void> {
  if (!(await claimOnce(services, windowKey, SECOND_FACTOR_WINDOW))) return;
  try {
    await recordSecurityEvent(services.db, services.clock, {
      userId: user.id,
      type: 'second_factor_locked',
      ...origin,
      detail: { failures: SECOND_FACTOR_FAILURES_PER_ACCOUNT, window_minutes: SECOND_FACTOR_WINDOW / 60 },
    });
  } catch (error) {
    services.log.error({ err: { message: (error as Error).message } }, 'lock event not recorded');
  }
  await notify(services, user, 'second_factor_locked', {
    userAgent: origin.userAgent,
    ip: origin.ip,
  });
}

/**
 * Count one second-factor attempt before its proof is checked, and refuse with 429 once the
 * account has used its budget of wrong proofs. Each attempt must end in `proofNotWrong` unless the
 * proof was wrong.
 */
export async function beginSecondFactorAttempt(
  services: CitadelServices,
  user: UserRecord,
  origin?: EventOrigin,
): Promise<void> {
  await budget(services).begin(String(user.id), (lockKey) =>
    onSecondFactorLocked(services, user, lockKey, origin),
  );
}

/** The attempt passed, or was malformed (checked no proof): it is not a wrong guess. */
export async function proofNotWrong(services: CitadelServices, userId: number): Promise<void> {
  await budget(services).notAFailure(String(userId));
}
