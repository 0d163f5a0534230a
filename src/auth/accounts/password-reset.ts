import {
  claimSingleUseToken,
  type CitadelServices,
  randomToken,
  sha256Hex,
  retryOnDeadlock,
} from '../../plugin-api.ts';
import { accountsOptions } from './options.ts';
import { accountsMessages } from './messages/index.ts';

/**
 * Password-reset tokens: 32 random bytes, stored as SHA-256, single use,
 * `resetTokenTtlSeconds` (the accounts plugin's option) long.
 * A new request invalidates the user's older tokens. The mail is in the account's language, else
 * `requestLocale` (the language of the request that asked for it).
 */
export async function sendPasswordReset(
  services: CitadelServices,
  email: string,
  requestLocale?: string,
): Promise<void> {
  const user = await services.users.findByEmail(email);
  if (!user) return;
  const { db, clock, config } = services;
  const ttlSeconds = accountsOptions(services).resetTokenTtlSeconds;
  const token = randomToken(32);
  const now = clock.now();
  // Parallel requests for one user invalidate each other's tokens: a deadlock victim runs again.
  await retryOnDeadlock(() =>
    db.transaction().execute(async (tx) => {
      await tx
        .updateTable('password_reset_tokens')
        .set({ used_at: now.toISOString() })
        .where('user_id', '=', user.id)
        .where('used_at', 'is', null)
        .execute();
      await tx
        .insertInto('password_reset_tokens')
        .values({
          user_id: user.id,
          token_hash: sha256Hex(token),
          expires_at: new Date(now.getTime() + ttlSeconds * 1000).toISOString(),
          used_at: null,
          created_at: now.toISOString(),
        })
        .execute();
    }),
  );
  const url = `${config.appUrl}/reset-password?token=${encodeURIComponent(token)}`;
  const minutes = Math.round(ttlSeconds / 60);
  await services.emails.send(
    'resetPassword',
    {
      to: user.email,
      username: user.username,
      url,
      expiresInMinutes: minutes,
      locale: user.locale ?? requestLocale,
    },
    (props, language) => {
      const t = accountsMessages.in(language);
      return {
        subject: t('mail.reset.subject'),
        intro: t('mail.reset.intro', { username: props.username, minutes: props.expiresInMinutes }),
        link: { url: props.url, label: t('mail.reset.link') },
        outro: t('mail.reset.outro'),
      };
    },
  );
}

/**
 * Use a reset token: marks it used (atomically: one of two concurrent uses wins) and returns the
 * user id, or null when it is unknown, used, superseded or expired.
 */
export async function consumePasswordResetToken(
  services: CitadelServices,
  token: string,
): Promise<number | null> {
  return claimSingleUseToken(services.db, 'password_reset_tokens', token, services.clock.now());
}

/** Is the token currently usable (for showing the form)? */
export async function isPasswordResetTokenUsable(services: CitadelServices, token: string): Promise<boolean> {
  const row = await services.db
    .selectFrom('password_reset_tokens')
    .select('id')
    .where('token_hash', '=', sha256Hex(token))
    .where('used_at', 'is', null)
    .where('expires_at', '>', services.clock.now().toISOString())
    .executeTakeFirst();
  return row !== undefined;
}
