import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { sha256Hex } from '../../core/crypto.ts';

/** The columns a table of emailed single-use tokens has. */
interface SingleUseTokenColumns {
  token_hash: string;
  user_id: number;
  expires_at: string;
  used_at: string | null;
}

/**
 * Any table with those columns, the core's or a plugin's (a plugin adds its table to `Database`
 * and passes its name): the core names no capability's table.
 */
export type SingleUseTokenTable = {
  [T in keyof Database & string]: Database[T] extends SingleUseTokenColumns ? T : never;
}[keyof Database & string];

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
