import { type CitadelServices, type UserRecord, parseMailbox } from '../../plugin-api.ts';
import type { SocialProfile } from './providers.ts';
import { baseUsername, usernameCandidates } from './username.ts';

/** The domain of stand-in addresses: `.invalid` is reserved (RFC 2606), so nothing is ever mailed. */
export const PLACEHOLDER_EMAIL_DOMAIN = 'social.invalid';

export type SocialOutcome = 'found' | 'linked' | 'created';

export interface SocialUser {
  user: UserRecord;
  outcome: SocialOutcome;
}

/**
 * The account for a provider identity:
 * 1. a known (provider, subject) signs in its user;
 * 2. else a provider-verified email equal to an account's email links the identity to that account,
 *    but only when that account has proved the address itself (`email_verified_at`): anyone can
 *    register someone else's address, and linking would hand the victim's identity to that account;
 * 3. else a new active account without a password. Its email is the provider's only when verified
 *    (and then free, or step 2 would have linked). An unverified address is never given to the new
 *    account: it could belong to someone else, who would then find it taken, and whose password reset
 *    would open an account the provider identity controls. Such accounts get a stand-in address under
 *    `social.invalid` and can set a real one later.
 */
export async function findOrCreateSocialUser(
  services: CitadelServices,
  provider: string,
  profile: SocialProfile,
): Promise<SocialUser> {
  // Two callbacks for one new identity can race: the unique (provider, subject) index decides,
  // and the loser finds the winner's row on the second pass.
  for (let pass = 0; ; pass += 1) {
    try {
      return await resolve(services, provider, profile);
    } catch (error) {
      if (pass >= 1) throw error;
    }
  }
}

async function resolve(
  services: CitadelServices,
  provider: string,
  profile: SocialProfile,
): Promise<SocialUser> {
  const { db, clock, users } = services;
  const now = clock.now().toISOString();
  // A provider's address is held to the same rule as a typed one: one plain mailbox, else none.
  const mailbox = profile.email ? parseMailbox(profile.email) : null;
  const email = mailbox && mailbox.length <= 191 ? mailbox : null;

  const identity = await db
    .selectFrom('oauth_identities')
    .select(['id', 'user_id'])
    .where('provider', '=', provider)
    .where('subject', '=', profile.subject)
    .executeTakeFirst();
  if (identity) {
    await db
      .updateTable('oauth_identities')
      .set({ email, updated_at: now })
      .where('id', '=', identity.id)
      .execute();
    const user = await users.findById(identity.user_id);
    if (!user) throw new Error('identity without user');
    return { user, outcome: 'found' };
  }

  const verifiedEmail = profile.emailVerified ? email : null;
  let addressTaken = false;
  if (verifiedEmail) {
    const existing = await users.findByEmail(verifiedEmail);
    if (existing?.email_verified_at) {
      await insertIdentity(services, provider, profile.subject, email, existing.id, now);
      return { user: existing, outcome: 'linked' };
    }
    // An unproved account holds the address: leave it untouched, give the identity its own account.
    addressTaken = existing !== undefined;
  }

  const ownEmail = verifiedEmail && !addressTaken ? verifiedEmail : null;
  const user = await createUser(
    services,
    profile,
    ownEmail ?? placeholderEmail(services, provider, profile.subject),
  );
  if (ownEmail) await users.markEmailVerified(user.id);
  await insertIdentity(services, provider, profile.subject, email, user.id, now);
  return { user, outcome: 'created' };
}

async function insertIdentity(
  services: CitadelServices,
  provider: string,
  subject: string,
  email: string | null,
  userId: number,
  now: string,
): Promise<void> {
  await services.db
    .insertInto('oauth_identities')
    .values({ provider, subject, email, user_id: userId, created_at: now, updated_at: now })
    .execute();
}

/** Stable per identity and opaque: derived from the server secret, so it reveals no subject. */
export function placeholderEmail(services: CitadelServices, provider: string, subject: string): string {
  const digest = services.secrets.hmac('social-placeholder-email', `${provider}\u0000${subject}`);
  return `${provider}-${digest.slice(0, 20)}@${PLACEHOLDER_EMAIL_DOMAIN}`;
}

export function isPlaceholderEmail(email: string): boolean {
  return email.endsWith(`@${PLACEHOLDER_EMAIL_DOMAIN}`);
}

async function createUser(
  services: CitadelServices,
  profile: SocialProfile,
  email: string,
): Promise<UserRecord> {
  const base = baseUsername(profile.usernameHints);
  for (const candidate of usernameCandidates(base)) {
    if (await services.users.findByUsername(candidate)) continue;
    try {
      return await services.users.create({ username: candidate, email, passwordHash: null, active: true });
    } catch (error) {
      // Someone took this username (or the email) between the lookup and the insert.
      if (await services.users.findByEmail(email)) throw error;
      if (!(await services.users.findByUsername(candidate))) throw error;
    }
  }
  throw new Error('could not find a free username');
}
