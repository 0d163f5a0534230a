import type { Kysely } from 'kysely';
import { type Database, type Dialect, ConflictError } from '../../plugin-api.ts';
import { factorsMessages } from './messages/index.ts';

/** The envelope's `action` of a refused removal: machine-readable, like `sudo.required`. */
export const TWO_FACTOR_REQUIRED_ACTION = 'two_factor.required';

/**
 * 409 `two_factor.required`: with REQUIRE_TWO_FACTOR=1 the last factor (TOTP or passkey) stays
 * until another one is added. Nothing was removed.
 */
export class TwoFactorRequiredError extends ConflictError {
  override name = 'TwoFactorRequiredError';
  constructor(factorId: string) {
    super(factorsMessages.text('error.required'), {
      action: TWO_FACTOR_REQUIRED_ACTION,
      data: { factor: factorId },
    });
  }
}

/**
 * Lock the user's row until the transaction ends, so that two removals of this user's factors run
 * one after the other: the second one counts what is left after the first one committed. Without it,
 * removing the TOTP and the last passkey at once would each see the other factor still there
 * (PostgreSQL and InnoDB read the other transaction's rows as they were). SQLite has one writer:
 * its transactions are already one after the other.
 */
export async function lockUserForFactorChange(
  db: Kysely<Database>,
  dialect: Dialect,
  userId: number,
): Promise<void> {
  if (dialect === 'sqlite') return;
  const query = db.selectFrom('users').select('id').where('id', '=', userId);
  // PostgreSQL: NO KEY UPDATE still lets other transactions insert rows that reference the user
  // (events, sessions) while it is held. InnoDB has no such mode.
  await (dialect === 'postgres' ? query.forNoKeyUpdate() : query.forUpdate()).execute();
}
