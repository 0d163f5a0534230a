import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import type { Clock } from '../../core/clock.ts';
import { randomToken, safeEqual, sha256Hex } from '../../core/crypto.ts';
import { isForeignKeyViolation } from '../../db/errors.ts';
import { AuthenticationRequiredError } from '../../core/errors.ts';

export const REMEMBER_COOKIE = 'citadel_remember';

/** How long after a rotation the previous validator counts as a concurrent request, not a theft. */
const ROTATION_GRACE_SECONDS = 10;

export interface RememberCookie {
  value: string;
  /** Seconds the browser should keep it. */
  maxAge: number;
}

/**
 * Remember-me tokens: `selector:validator`. The selector finds the row, the validator is stored as
 * SHA-256 and compared in constant time. One row per device; each use replaces the validator
 * (rotation), so a copied cookie stops working once the real device uses it. The expiry is fixed
 * at sign-in: use does not extend it past 30 days.
 */
export class RememberTokens {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly ttlSeconds: number,
  ) {}

  async issue(userId: number): Promise<RememberCookie> {
    const selector = randomToken(12);
    const validator = randomToken(32);
    const now = this.clock.now();
    try {
      await this.db
        .insertInto('remember_tokens')
        .values({
          selector,
          validator_hash: sha256Hex(validator),
          user_id: userId,
          expires_at: new Date(now.getTime() + this.ttlSeconds * 1000).toISOString(),
          created_at: now.toISOString(),
          last_used_at: null,
        })
        .execute();
    } catch (error) {
      // The user was deleted while signing in: nobody to sign in, not a fault.
      if (isForeignKeyViolation(error)) throw new AuthenticationRequiredError();
      throw error;
    }
    return { value: `${selector}:${validator}`, maxAge: this.ttlSeconds };
  }

  /**
   * Use a cookie value: on success the user id and the rotated cookie; null when unknown, wrong or
   * expired. A wrong validator for a known selector deletes that row: the cookie was copied or stale.
   * The one exception is 'superseded': the validator was replaced moments ago, which is what a
   * browser sending several requests at once looks like (its first request rotated the cookie). That
   * request is not signed in, and the browser keeps the new cookie it has just been given.
   */
  async consume(
    cookieValue: string,
  ): Promise<{ userId: number; cookie: RememberCookie } | null | 'superseded'> {
    const [selector, validator, extra] = cookieValue.split(':');
    if (!selector || !validator || extra !== undefined || selector.length > 64) return null;
    const row = await this.db
      .selectFrom('remember_tokens')
      .select(['id', 'user_id', 'validator_hash', 'expires_at', 'last_used_at'])
      .where('selector', '=', selector)
      .executeTakeFirst();
    if (!row) return null;
    const now = this.clock.now();
    const expired = row.expires_at <= now.toISOString();
    if (!safeEqual(row.validator_hash, sha256Hex(validator)) || expired) {
      const graceStart = new Date(now.getTime() - ROTATION_GRACE_SECONDS * 1000).toISOString();
      if (!expired && row.last_used_at !== null && row.last_used_at >= graceStart) return 'superseded';
      await this.db.deleteFrom('remember_tokens').where('id', '=', row.id).execute();
      return null;
    }
    const nextValidator = randomToken(32);
    // Rotate only if nobody rotated it in between: the hash we checked must still be the stored one.
    const rotated = await this.db
      .updateTable('remember_tokens')
      .set({ validator_hash: sha256Hex(nextValidator), last_used_at: now.toISOString() })
      .where('id', '=', row.id)
      .where('validator_hash', '=', row.validator_hash)
      .executeTakeFirst();
    if (Number(rotated.numUpdatedRows) !== 1) return 'superseded';
    const maxAge = Math.max(1, Math.floor((new Date(row.expires_at).getTime() - now.getTime()) / 1000));
    return { userId: row.user_id, cookie: { value: `${selector}:${nextValidator}`, maxAge } };
  }

  async revoke(cookieValue: string): Promise<void> {
    const [selector] = cookieValue.split(':');
    if (selector) await this.db.deleteFrom('remember_tokens').where('selector', '=', selector).execute();
  }

  async revokeAllForUser(userId: number): Promise<void> {
    await this.db.deleteFrom('remember_tokens').where('user_id', '=', userId).execute();
  }
}
