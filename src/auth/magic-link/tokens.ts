import {
  claimSingleUseToken,
  type CitadelServices,
  type UserRecord,
  randomToken,
  sha256Hex,
  canBeActivated,
} from '../../plugin-api.ts';
import { magicLinkOptions } from './options.ts';
import { magicLinkMessages } from './messages/index.ts';

/** Tokens are base64url of 32 random bytes: 43 characters. Anything longer is not ours. */
const MAX_TOKEN_LENGTH = 128;

/**
 * Email a sign-in link to the account with this address, if there is one that may sign in.
 * Unknown addresses get nothing; the caller answers the same either way. The mail is in the
 * account's language, else `requestLocale` (the language of the request that asked for it).
 */
export async function sendMagicLink(
  services: CitadelServices,
  email: string,
  requestLocale?: string,
): Promise<void> {
  const user = await services.users.findByEmail(email);
  if (!user || (user.active !== 1 && !canBeActivated(services))) return;
  const { db, clock, config } = services;
  const { ttlSeconds } = magicLinkOptions(services);
  const token = randomToken(32);
  const now = clock.now();
  await db
    .insertInto('magic_link_tokens')
    .values({
      user_id: user.id,
      token_hash: sha256Hex(token),
      expires_at: new Date(now.getTime() + ttlSeconds * 1000).toISOString(),
      used_at: null,
      created_at: now.toISOString(),
    })
    .execute();
  const url = `${config.appUrl}/magic-link/verify/${encodeURIComponent(token)}`;
  const minutes = Math.round(ttlSeconds / 60);
  await services.emails.send(
    'magicLink',
    {
      to: user.email,
      username: user.username,
      url,
      expiresInMinutes: minutes,
      locale: user.locale ?? requestLocale,
    },
    (props, language) => {
      const t = magicLinkMessages.in(language);
      return {
        subject: t('mail.subject'),
        intro: t('mail.intro', { username: props.username, minutes: props.expiresInMinutes }),
        link: { url: props.url, label: t('mail.link') },
        outro: t('mail.outro'),
      };
    },
  );
}

/**
 * Use a link: the token is claimed with one conditional UPDATE (used_at still null), so of two
 * concurrent uses exactly one gets the row. Returns its user, or undefined for an unknown, used
 * or expired token.
 */
export async function consumeMagicLink(
  services: CitadelServices,
  token: string,
): Promise<UserRecord | undefined> {
  if (token.length === 0 || token.length > MAX_TOKEN_LENGTH) return undefined;
  const userId = await claimSingleUseToken(services.db, 'magic_link_tokens', token, services.clock.now());
  return userId === null ? undefined : services.users.findById(userId);
}
