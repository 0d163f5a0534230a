import type { Kysely } from 'kysely';
import {
  type Language,
  type Database,
  type CitadelServices,
  type EndpointRateLimit,
  type RateLimitInput,
  type UserRecord,
  normalizeEmail,
  randomToken,
  safeEqual,
  sha256Hex,
  ConflictError,
  ForbiddenError,
  retryOnDeadlock,
  recordSecurityEvent,
  type EventOrigin,
  notify,
  recipientLocale,
} from '../../plugin-api.ts';
import { accountCenterMessages } from './messages/index.ts';

/** A link to the new address is valid this long. */
export const EMAIL_CHANGE_TTL_SECONDS = 60 * 60;
/** Email-change requests per account and per target address in one window. */
export const EMAIL_CHANGE_REQUESTS_PER_WINDOW = 5;
export const EMAIL_CHANGE_WINDOW_SECONDS = 60 * 60;
const MAX_TOKEN_LENGTH = 128;

export class EmailTakenError extends ConflictError {
  override name = 'EmailTakenError';
  constructor() {
    super(accountCenterMessages.text('error.emailTaken'), {
      errors: { email: accountCenterMessages.text('error.emailTaken') },
    });
  }
}

/** 403: the link is confirmed only in a session of the account that asked for the change. */
export class OtherAccountError extends ForbiddenError {
  override name = 'OtherAccountError';
  constructor() {
    super(accountCenterMessages.text('error.otherAccount'));
  }
}

async function ownerOf(services: CitadelServices, email: string, userId: number) {
  const owner = await services.users.findByEmail(email);
  return owner !== undefined && owner.id !== userId ? owner : undefined;
}

/**
 * Every pending email change of the user ends: a newer request, a password reset or change, other
 * sessions revoked, the address changed. `db` may be the transaction of that change.
 */
export async function voidPendingEmailChanges(
  db: Kysely<Database>,
  userId: number,
  now: Date,
): Promise<void> {
  await db
    .updateTable('email_change_tokens')
    .set({ used_at: now.toISOString() })
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .execute();
}

/**
 * 5 requests per account and 5 per target address an hour, as the endpoint's declared rate limits:
 * counted before the address is looked up (each hit one atomic statement, so parallel requests
 * cannot slip past), so a 429 says nothing about who owns it. A request refused as invalid (no
 * valid address, or the account's own address) counts for neither.
 */
export const EMAIL_CHANGE_LIMITS: readonly EndpointRateLimit[] = [
  {
    name: 'email-change:account',
    max: EMAIL_CHANGE_REQUESTS_PER_WINDOW,
    windowSeconds: EMAIL_CHANGE_WINDOW_SECONDS,
    per: (input) => (countsAsEmailChange(input) ? String(input.caller!.user.id) : undefined),
  },
  {
    name: 'email-change:address',
    max: EMAIL_CHANGE_REQUESTS_PER_WINDOW,
    windowSeconds: EMAIL_CHANGE_WINDOW_SECONDS,
    per: (input) => (countsAsEmailChange(input) ? normalizeEmail(input.body.email as string) : undefined),
  },
];

/** A valid request for another address than the account's own (what the handler goes on with). */
function countsAsEmailChange(input: RateLimitInput): boolean {
  const email = input.body.email;
  return (
    Object.keys(input.errors).length === 0 &&
    input.caller !== null &&
    typeof email === 'string' &&
    email.toLowerCase() !== input.caller.user.email
  );
}

/**
 * Start an email change: a link (32 random bytes, SHA-256 at rest, single use) to the new address,
 * a notice to the old one. Older pending links of the user stop working. The address changes only
 * when the link's page is confirmed in a session of this account.
 *
 * A taken address is a 409, unless `hideExisting` (REGISTER_HIDE_EXISTING): then everything the
 * requester can observe is the same as for a free address (older links voided, the event, the
 * notice to the old address, the answer), and the owner of the taken address gets a notice
 * instead of a link.
 */
export async function requestEmailChange(
  services: CitadelServices,
  user: UserRecord,
  newEmail: string,
  origin: EventOrigin,
  options: { hideExisting: boolean; language?: Language },
): Promise<void> {
  const email = normalizeEmail(newEmail);
  const owner = await ownerOf(services, email, user.id);
  if (owner && !options.hideExisting) throw new EmailTakenError();
  const token = randomToken(32);
  const now = services.clock.now();
  // Parallel requests void each other's rows: a deadlock victim (InnoDB) runs again.
  await retryOnDeadlock(() =>
    services.db.transaction().execute(async (trx) => {
      await voidPendingEmailChanges(trx, user.id, now);
      if (!owner)
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
    }),
  );
  if (owner) {
    await services.emails.send(
      'emailTakenNotice',
      {
        to: owner.email,
        username: owner.username,
        locale: recipientLocale(owner, options.language && { language: options.language }),
      },
      (props, language) => {
        const t = accountCenterMessages.in(language);
        return {
          subject: t('mail.taken.subject'),
          intro: t('mail.taken.intro', { app: props.appName, username: props.username }),
          outro: t('mail.taken.outro'),
        };
      },
    );
  } else {
    const url = `${services.config.appUrl}/account/email/verify/${encodeURIComponent(token)}`;
    await services.emails.send(
      'confirmEmailChange',
      {
        to: email,
        newEmail: email,
        username: user.username,
        url,
        expiresInMinutes: EMAIL_CHANGE_TTL_SECONDS / 60,
        locale: recipientLocale(user, options.language && { language: options.language }),
      },
      (props, language) => {
        const t = accountCenterMessages.in(language);
        return {
          subject: t('mail.confirm.subject'),
          intro: t('mail.confirm.intro', { username: props.username, minutes: props.expiresInMinutes }),
          link: { url: props.url, label: t('mail.confirm.link') },
          outro: t('mail.confirm.outro'),
        };
      },
    );
  }
  void notify(services, user, 'email_change', {
    subject: email,
    userAgent: origin.userAgent,
    ip: origin.ip,
    locale: options.language?.locale,
  });
}

export interface PendingEmailChange {
  id: number;
  userId: number;
  newEmail: string;
}

/** The pending change a link stands for, or null for an unknown, used, voided or expired one. Reads only. */
export async function findPendingEmailChange(
  services: CitadelServices,
  token: string,
): Promise<PendingEmailChange | null> {
  if (token.length === 0 || token.length > MAX_TOKEN_LENGTH) return null;
  const hash = sha256Hex(token);
  const row = await services.db
    .selectFrom('email_change_tokens')
    .select(['id', 'user_id', 'new_email', 'token_hash'])
    .where('token_hash', '=', hash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', services.clock.now().toISOString())
    .executeTakeFirst();
  // The index found it by its hash; the hash is compared once more in constant time.
  if (!row || !safeEqual(row.token_hash, hash)) return null;
  return { id: row.id, userId: row.user_id, newEmail: row.new_email };
}

/**
 * Confirm the change (a POST of the link's page, in a session of `userId`): claim the token once (a
 * conditional UPDATE, so of concurrent uses exactly one wins), then change the address, in one
 * transaction with the `email_changed` event. The new address counts as proved (the link was read
 * in its mailbox); other pending changes, and links emailed to the old address (password reset,
 * magic link), stop working. Null for an unknown, used or expired link; OtherAccountError for a
 * session of another account and EmailTakenError when the address was registered meanwhile (the
 * link stays valid in both cases).
 */
export async function confirmEmailChange(
  services: CitadelServices,
  token: string,
  userId: number,
  origin: EventOrigin,
): Promise<UserRecord | null> {
  const pending = await findPendingEmailChange(services, token);
  if (!pending) return null;
  if (pending.userId !== userId) throw new OtherAccountError();
  if (await ownerOf(services, pending.newEmail, userId)) throw new EmailTakenError();
  const old = await services.users.findById(userId);
  if (!old) return null;
  const now = services.clock.now();
  const at = now.toISOString();
  const changed = await services.db
    .transaction()
    .execute(async (trx) => {
      const claimed = await trx
        .updateTable('email_change_tokens')
        .set({ used_at: at })
        .where('id', '=', pending.id)
        .where('used_at', 'is', null)
        .executeTakeFirst();
      if (Number(claimed.numUpdatedRows) !== 1) return false;
      await voidPendingEmailChanges(trx, userId, now);
      await trx
        .updateTable('users')
        .set({
          email: pending.newEmail,
          email_verified_at: at,
          updated_at: at,
          // A proved address listed in ADMIN_EMAILS makes an administrator, as any other proof does.
          ...(services.users.isAdminEmail(pending.newEmail) ? { role: 'admin' } : {}),
        })
        .where('id', '=', userId)
        .execute();
      for (const table of ['password_reset_tokens', 'magic_link_tokens'] as const)
        await trx
          .updateTable(table)
          .set({ used_at: at })
          .where('user_id', '=', userId)
          .where('used_at', 'is', null)
          .execute();
      await recordSecurityEvent(trx, services.clock, {
        userId,
        type: 'email_changed',
        ...origin,
        detail: { from: old.email, to: pending.newEmail },
      });
      return true;
    })
    .catch(async (error: unknown) => {
      // The unique index settles a registration that raced this change.
      if (await ownerOf(services, pending.newEmail, userId)) throw new EmailTakenError();
      throw error;
    });
  if (!changed) return null;
  await services.users.changed(userId);
  return (await services.users.findById(userId)) ?? null;
}
