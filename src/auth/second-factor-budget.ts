import type { CitadelServices } from '../http/fastify-types.ts';
import type { UserRecord } from './core/users.ts';
import { composeMail } from '../mail/templates.ts';
import { claimOnce } from './pipeline/claims.ts';
import { FailureBudget } from './failure-budget.ts';

/**
 * Contract 13: second-factor guesses (TOTP, emailed codes, recovery codes, sudo proofs) are counted
 * per account across every pending context and session: at most 10 wrong proofs per hour, then 429.
 * A new sign-in (a correct password) opens a new context but not a new budget.
 */
export const SECOND_FACTOR_FAILURES_PER_ACCOUNT = 10;
export const SECOND_FACTOR_WINDOW = 3600;

function budget(services: CitadelServices): FailureBudget {
  return new FailureBudget(services, '2fa:account', SECOND_FACTOR_FAILURES_PER_ACCOUNT, SECOND_FACTOR_WINDOW);
}

/**
 * Called when the account goes over its budget: the event hook point for the account center
 * (issue 11's `recordSecurityEvent(…, 'second_factor_locked')`) and one mail per window.
 */
export async function onSecondFactorLocked(
  services: CitadelServices,
  user: UserRecord,
  windowKey: string,
): Promise<void> {
  if (!(await claimOnce(services, windowKey, SECOND_FACTOR_WINDOW))) return;
  // Hook point: record the `second_factor_locked` security event here once issue 11 provides it.
  try {
    await services.mailer.send(
      composeMail(user.email, {
        subject: 'Sign-in codes locked for an hour',
        intro: `There were ${SECOND_FACTOR_FAILURES_PER_ACCOUNT} wrong second-factor codes for the account ${user.username} within the hour, so codes are refused for now.`,
        outro:
          'If this was not you, someone knows your password: change it once the lock ends (or reset it now).',
      }),
    );
  } catch (error) {
    // The refusal matters more than the notice: a mail outage must not turn the 429 into an error.
    services.log.error({ err: { message: (error as Error).message } }, 'lock notice not sent');
  }
}

/**
 * Count one second-factor attempt before its proof is checked, and refuse with 429 once the
 * account has used its budget of wrong proofs. Each attempt must end in `proofNotWrong` unless the
 * proof was wrong.
 */
export async function beginSecondFactorAttempt(services: CitadelServices, user: UserRecord): Promise<void> {
  await budget(services).begin(String(user.id), (lockKey) => onSecondFactorLocked(services, user, lockKey));
}

/** The attempt passed, or was malformed (checked no proof): it is not a wrong guess. */
export async function proofNotWrong(services: CitadelServices, userId: number): Promise<void> {
  await budget(services).notAFailure(String(userId));
}
