import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import type { CitadelServices } from './services.ts';

/**
 * Tells the plugins that a user's password was set (a reset or a change), on `db`, the
 * transaction that writes the new hash: what they void with it (pending email changes) commits
 * or rolls back with the password.
 */
export async function passwordChanged(
  services: CitadelServices,
  db: Kysely<Database>,
  userId: number,
): Promise<void> {
  const now = services.clock.now();
  for (const listener of services.passwordChangedListeners) await listener(db, userId, now);
}
