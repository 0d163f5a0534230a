import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { sha256Hex } from '../../core/crypto.ts';

/** Tables of emailed single-use tokens: the same columns (token_hash, user_id, expires_at, used_at). */
export type SingleUseTokenTable = 'password_reset_tokens' | 'magic_link_tokens';

/**
 * Use an emailed token once: it is looked up by its SHA-256 and claimed with one conditional UPDATE
 * (used_at still null), so of two concurrent uses exactly one gets it. Returns the owner's user id,
 * or null for an unknown, used, superseded or expired token.
 */
export async function claimSingleUseToken(
  db: Kysely<Database>,
  table: SingleUseTokenTable,
  token: string,
  now: Date,
): Promise<number | null> {
  const at = now.toISOString();
  const row = await db
    .selectFrom(table)
    .select(['id', 'user_id'])
    .where('token_hash', '=', sha256Hex(token))
    .where('used_at', 'is', null)
    .where('expires_at', '>', at)
    .executeTakeFirst();
  if (!row) return null;
  const claimed = await db
    .updateTable(table)
    .set({ used_at: at })
    .where('id', '=', row.id)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(claimed.numUpdatedRows) === 1 ? row.user_id : null;
}
