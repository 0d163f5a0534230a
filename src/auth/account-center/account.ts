import type { CitadelServices } from '../../http/fastify-types.ts';
import type { UserRecord } from '../core/users.ts';
import { normalizeUsername } from '../core/users.ts';
import { ValidationError } from '../../core/errors.ts';
import { recordSecurityEvent, type EventOrigin } from './events.ts';

export const USERNAME_TAKEN = 'This username is already taken.';

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
      await trx
        .updateTable('users')
        .set({
          username: username.trim(),
          username_normalized: normalized,
          updated_at: services.clock.now().toISOString(),
        })
        .where('id', '=', user.id)
        .execute();
      await recordSecurityEvent(trx, services.clock, {
        userId: user.id,
        type: 'username_changed',
        ...origin,
        detail: { from: user.username, to: username.trim() },
      });
    });
  } catch (error) {
    // Two renames raced past the check above: the unique index decides.
    const winner = await services.users.findByUsername(username);
    if (winner && winner.id !== user.id) throw new ValidationError({ username: USERNAME_TAKEN });
    throw error;
  }
  return (await services.users.findById(user.id))!;
}

/**
 * Delete the account: the `account_deleted` audit row (without the user), the user (sessions,
 * remember-me, factors, identities, tokens and pending links go with it by foreign key), and the
 * application's `onUserDeleted` hook, all in one transaction: if the hook fails, nothing is deleted.
 */
export async function deleteAccount(
  services: CitadelServices,
  user: UserRecord,
  origin: EventOrigin,
): Promise<void> {
  await services.db.transaction().execute(async (trx) => {
    await trx.deleteFrom('security_events').where('user_id', '=', user.id).execute();
    await recordSecurityEvent(trx, services.clock, {
      userId: null,
      type: 'account_deleted',
      ...origin,
      detail: { user_id: user.id },
    });
    await trx.deleteFrom('users').where('id', '=', user.id).execute();
    await services.config.onUserDeleted?.(
      { id: user.id, username: user.username, email: user.email },
      { db: trx },
    );
  });
  // Redis sessions have no foreign key to cascade.
  await services.sessions.destroyForUser(user.id);
}
