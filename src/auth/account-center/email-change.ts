import type { CitadelServices } from '../../http/fastify-types.ts';
import type { UserRecord } from '../core/users.ts';
import { normalizeEmail } from '../core/users.ts';
import { randomToken, sha256Hex } from '../../core/crypto.ts';
import { ConflictError } from '../../core/errors.ts';
import { recordSecurityEvent, type EventOrigin } from './events.ts';
import { notify } from './notify.ts';
import { describeDevice } from './device.ts';

/** A link to the new address is valid this long. */
export const EMAIL_CHANGE_TTL_SECONDS = 60 * 60;
const MAX_TOKEN_LENGTH = 128;

export class EmailTakenError extends ConflictError {
  override name = 'EmailTakenError';
  constructor() {
    super('This email address is already registered.', {
      errors: { email: 'This email address is already registered.' },
    });
  }
}

async function emailTaken(services: CitadelServices, email: string, userId: number): Promise<boolean> {
  const owner = await services.users.findByEmail(email);
  return owner !== undefined && owner.id !== userId;
}

/**
 * Start an email change: a link (32 random bytes, SHA-256 at rest, single use) to the new address,
 * a notice to the old one. Older pending links of the user stop working. The address itself
 * changes only when the link is opened.
 */
export async function requestEmailChange(
  services: CitadelServices,
  user: UserRecord,
  newEmail: string,
  origin: EventOrigin,
): Promise<void> {
  const email = normalizeEmail(newEmail);
  if (await emailTaken(services, email, user.id)) throw new EmailTakenError();
  const token = randomToken(32);
  const now = services.clock.now();
  await services.db.transaction().execute(async (trx) => {
    await trx
      .updateTable('email_change_tokens')
      .set({ used_at: now.toISOString() })
      .where('user_id', '=', user.id)
      .where('used_at', 'is', null)
      .execute();
    await trx
      .insertInto('email_change_tokens')
      .values({
        user_id: user.id,
        new_email: email,
        token_hash: sha256Hex(token),
        expires_at: new Date(now.getTime() + EMAIL_CHANGE_TTL_SECONDS * 1000).toISOString(),
        used_at: null,
        created_at: now.toISOString(),
      })
      .execute();
    await recordSecurityEvent(trx, services.clock, {
      userId: user.id,
      type: 'email_change_requested',
      ...origin,
      detail: { new_email: email },
    });
  });
  const url = `${services.config.appUrl}/account/email/verify/${encodeURIComponent(token)}`;
  await services.emails.send(
    'confirmEmailChange',
    {
      to: email,
      newEmail: email,
      username: user.username,
      url,
      expiresInMinutes: EMAIL_CHANGE_TTL_SECONDS / 60,
    },
    (props) => ({
      subject: 'Confirm your new email address',
      intro: `Someone asked to use this address for the account ${props.username}. If it was you, follow the link within ${props.expiresInMinutes} minutes. It works once.`,
      link: { url: props.url, label: 'Confirm this address' },
      outro: 'If you did not ask for this, ignore this email: nothing changes without the link.',
    }),
  );
  void notify(services, user, 'email_change', {
    subject: email,
    device: describeDevice(origin.userAgent),
    ip: origin.ip,
  });
}

/**
 * Open the link: claim the token once (a conditional UPDATE, so of concurrent uses exactly one
 * wins), then change the address, in one transaction with the `email_changed` event. Links emailed
 * to the old address (password reset, magic link) stop working. Null for an unknown, used or expired
 * link; EmailTakenError when the address was registered meanwhile (the link stays unused).
 */
export async function confirmEmailChange(
  services: CitadelServices,
  token: string,
  origin: EventOrigin,
): Promise<UserRecord | null> {
  if (token.length === 0 || token.length > MAX_TOKEN_LENGTH) return null;
  const now = services.clock.now().toISOString();
  const row = await services.db
    .selectFrom('email_change_tokens')
    .select(['id', 'user_id', 'new_email'])
    .where('token_hash', '=', sha256Hex(token))
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  if (!row) return null;
  if (await emailTaken(services, row.new_email, row.user_id)) throw new EmailTakenError();
  const old = await services.users.findById(row.user_id);
  if (!old) return null;
  const changed = await services.db
    .transaction()
    .execute(async (trx) => {
      const claimed = await trx
        .updateTable('email_change_tokens')
        .set({ used_at: now })
        .where('id', '=', row.id)
        .where('used_at', 'is', null)
        .executeTakeFirst();
      if (Number(claimed.numUpdatedRows) !== 1) return false;
      await trx
        .updateTable('users')
        .set({ email: row.new_email, updated_at: now })
        .where('id', '=', row.user_id)
        .execute();
      await trx
        .updateTable('password_reset_tokens')
        .set({ used_at: now })
        .where('user_id', '=', row.user_id)
        .where('used_at', 'is', null)
        .execute();
      await trx
        .updateTable('magic_link_tokens')
        .set({ used_at: now })
        .where('user_id', '=', row.user_id)
        .where('used_at', 'is', null)
        .execute();
      await recordSecurityEvent(trx, services.clock, {
        userId: row.user_id,
        type: 'email_changed',
        ...origin,
        detail: { from: old.email, to: row.new_email },
      });
      return true;
    })
    .catch(async (error: unknown) => {
      // The unique index settles a registration that raced this change.
      if (await emailTaken(services, row.new_email, row.user_id)) throw new EmailTakenError();
      throw error;
    });
  if (!changed) return null;
  return (await services.users.findById(row.user_id)) ?? null;
}
