import {
  type CitadelServices,
  type UserRecord,
  normalizeUsername,
  AuthenticationRequiredError,
  ValidationError,
  recordSecurityEvent,
  type EventOrigin,
  transactionWithEffects,
} from '../../plugin-api.ts';
import { accountCenterMessages } from './messages/index.ts';

export const USERNAME_TAKEN = accountCenterMessages.text('error.usernameTaken');

/** Rename the user; the old and new names go into the `username_changed` event, in one transaction. */
export async function changeUsername(
  services: CitadelServices,
  user: UserRecord,
  username: string,
  origin: EventOrigin,
): Promise<UserRecord> {
  const normalized = normalizeUsername(username);
  const taken = await services.users.findByUsername(username);
  if (taken && taken.id !== user.id) throw new ValidationError({ username: USERNAME_TAKEN });
  try {
    await services.db.transaction().execute(async (trx) => {
      const updated = await trx
        .updateTable('users')
        .set({
          username: username.trim(),
          username_normalized: normalized,
          updated_at: services.clock.now().toISOString(),
        })
        .where('id', '=', user.id)
        .executeTakeFirst();
      // The account was deleted meanwhile: no event, and the caller is gone.
      if (Number(updated.numUpdatedRows) === 0) throw new AuthenticationRequiredError();
      await recordSecurityEvent(trx, services.clock, {
        userId: user.id,
        type: 'username_changed',
        ...origin,
        detail: { from: user.username, to: username.trim() },
      });
    });
  } catch (error) {
    if (error instanceof AuthenticationRequiredError) throw error;
    // Two renames raced past the check above: the unique index decides.
    const winner = await services.users.findByUsername(username);
    if (winner && winner.id !== user.id) throw new ValidationError({ username: USERNAME_TAKEN });
    throw error;
  }
  await services.users.changed(user.id);
  const renamed = await services.users.findById(user.id);
  if (!renamed) throw new AuthenticationRequiredError();
  return renamed;
}

/**
 * Delete the account: the user (sessions, remember-me, factors, identities, tokens, pending links
 * and the user's security events go with it by foreign key), the `account_deleted` audit row
 * (without the user), and the application's `onUserDeleted` hook, all in one transaction: if the
 * hook fails, nothing is deleted. The user row goes first: its lock is what a racing write for the
 * user waits on (the foreign key check), which then fails instead of leaving a row behind.
 * A racing sign-in that removes the session it replaces can still deadlock with the
 * deletion's cascade on PostgreSQL and InnoDB: the victim is undone whole, and the deletion runs
 * again (the hook with it, inside the new transaction). What the hook registers with `afterCommit`
 * runs once, after the deletion committed (`transactionWithEffects`).
 */
export async function deleteAccount(
  services: CitadelServices,
  user: UserRecord,
  origin: EventOrigin,
): Promise<void> {
  await transactionWithEffects(services.db, services.log, async (trx, afterCommit) => {
    const deleted = await trx.deleteFrom('users').where('id', '=', user.id).executeTakeFirst();
    // Deleted meanwhile by another request: nothing to do, and nobody to answer for.
    if (Number(deleted.numDeletedRows) === 0) throw new AuthenticationRequiredError();
    await recordSecurityEvent(trx, services.clock, {
      userId: null,
      type: 'account_deleted',
      ...origin,
      detail: { user_id: user.id },
    });
    await services.config.onUserDeleted?.(
      { id: user.id, username: user.username, email: user.email },
      { db: trx, afterCommit },
    );
  });
  await services.users.changed(user.id);
  // Redis sessions have no foreign key to cascade.
  await services.sessions.destroyForUser(user.id);
}
