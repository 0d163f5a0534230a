import type { Kysely } from 'kysely';
import {
  ConflictError,
  ForbiddenError,
  NotFoundError,
  randomToken,
  sha256Hex,
  type Database,
  insertReturningId,
  retryOnDeadlock,
  type Caller,
  type CitadelServices,
  normalizeEmail,
} from '../../plugin-api.ts';
import {
  lockOrganization,
  mayInviteAs,
  membershipOf,
  recordEvent,
  type ChangeOrigin,
  type Membership,
} from './service.ts';
import { organizationsMessages } from './messages/index.ts';

/** Invitations work for seven days, once. */
export const INVITATION_TTL_SECONDS = 7 * 24 * 3600;
/** A link proving the address works for a day, once. */
export const EMAIL_PROOF_TTL_SECONDS = 24 * 3600;
/** The envelope's `action` of an accept refused until the invited address is proved. */
export const EMAIL_UNCONFIRMED_ACTION = 'organizations.email_unconfirmed';

const GONE = organizationsMessages.text('invite.gone');
const OTHER_ADDRESS = organizationsMessages.text('error.otherAddress');
const UNCONFIRMED = organizationsMessages.text('error.unconfirmed');

/**
 * Invitations that can still be accepted: not used, not expired, and sent by someone who is still
 * a member allowed to invite with that role (an owner for an owner invitation, else an owner or an
 * admin). A revoked invitation is deleted. Every reader of invitations starts here.
 */
export function pendingInvitations(db: Kysely<Database>, now: Date) {
  return db
    .selectFrom('organization_invitations as i')
    .innerJoin('organization_members as inviter', (join) =>
      join
        .onRef('inviter.organization_id', '=', 'i.organization_id')
        .onRef('inviter.user_id', '=', 'i.invited_by'),
    )
    .where('i.used_at', 'is', null)
    .where('i.expires_at', '>', now.toISOString())
    .where((eb) =>
      eb.or([
        eb('inviter.role', '=', 'owner'),
        eb.and([eb('inviter.role', '=', 'admin'), eb('i.role', '<>', 'owner')]),
      ]),
    );
}

/** The pending invitations of an organization, newest first, with the inviter's username. */
export async function invitationsOf(db: Kysely<Database>, now: Date, organizationId: number) {
  return pendingInvitations(db, now)
    .innerJoin('users as u', 'u.id', 'i.invited_by')
    .select(['i.id', 'i.email', 'i.role', 'i.invited_by', 'u.username as inviter', 'i.expires_at'])
    .where('i.organization_id', '=', organizationId)
    .orderBy('i.id', 'desc')
    .limit(200)
    .execute();
}

/** The invitation a token names while it is pending, with its organization. */
export function invitationByToken(db: Kysely<Database>, now: Date, token: string) {
  return pendingInvitations(db, now)
    .innerJoin('organizations as o', 'o.id', 'i.organization_id')
    .select(['i.id', 'i.organization_id', 'i.email', 'i.role', 'i.invited_by', 'o.name', 'o.slug'])
    .where('i.token_hash', '=', sha256Hex(token))
    .executeTakeFirst();
}

/**
 * The unused, unexpired invitation a token names, whoever sent it: accepting judges the inviter
 * inside its transaction, under the organization's lock.
 */
function unusedInvitationByToken(db: Kysely<Database>, now: Date, token: string) {
  return db
    .selectFrom('organization_invitations as i')
    .innerJoin('organizations as o', 'o.id', 'i.organization_id')
    .select(['i.id', 'i.organization_id', 'i.email', 'i.role', 'i.invited_by', 'o.name', 'o.slug'])
    .where('i.token_hash', '=', sha256Hex(token))
    .where('i.used_at', 'is', null)
    .where('i.expires_at', '>', now.toISOString())
    .executeTakeFirst();
}

export function sameAddress(a: string, b: string): boolean {
  return normalizeEmail(a) === normalizeEmail(b);
}

/**
 * Use a proof link once, for the account that asked for it and the address it was sent to (an
 * email change since then makes it worthless). True when it proved the caller's address.
 */
async function claimProof(
  db: Kysely<Database>,
  user: Caller['user'],
  proof: string,
  now: Date,
): Promise<boolean> {
  const at = now.toISOString();
  const row = await db
    .selectFrom('organization_email_proofs')
    .select(['id', 'email'])
    .where('token_hash', '=', sha256Hex(proof))
    .where('user_id', '=', user.id)
    .where('used_at', 'is', null)
    .where('expires_at', '>', at)
    .executeTakeFirst();
  if (!row || !sameAddress(row.email, user.email)) return false;
  const claimed = await db
    .updateTable('organization_email_proofs')
    .set({ used_at: at })
    .where('id', '=', row.id)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(claimed.numUpdatedRows) === 1;
}

/** A new invitation of `organizationId` for `email`; its id, its token (for the link) and expiry. */
export async function createInvitation(
  services: CitadelServices,
  invitation: { organizationId: number; email: string; role: string; invitedBy: number },
): Promise<{ id: number; token: string; expiresAt: string }> {
  const { db, clock } = services;
  const token = randomToken(32);
  const now = clock.now();
  const expiresAt = new Date(now.getTime() + INVITATION_TTL_SECONDS * 1000).toISOString();
  const id = await insertReturningId(db, 'organization_invitations', {
    organization_id: invitation.organizationId,
    email: invitation.email,
    role: invitation.role,
    token_hash: sha256Hex(token),
    invited_by: invitation.invitedBy,
    expires_at: expiresAt,
    used_at: null,
    created_at: now.toISOString(),
  });
  return { id, token, expiresAt };
}

/**
 * Withdraw a pending invitation of the member's organization (an owner invitation only by an
 * owner); the address it was sent to. 404 when it is not pending (or was claimed meanwhile).
 */
export async function revokeInvitation(
  services: CitadelServices,
  member: Membership,
  invitationId: number,
): Promise<string> {
  const organizationId = member.id;
  const invitation = await pendingInvitations(services.db, services.clock.now())
    .select(['i.id', 'i.role', 'i.email'])
    .where('i.id', '=', invitationId)
    .where('i.organization_id', '=', organizationId)
    .executeTakeFirst();
  if (!invitation) throw new NotFoundError(organizationsMessages.text('error.invitationNotFound'));
  if (invitation.role === 'owner' && member.role !== 'owner')
    throw new ForbiddenError(organizationsMessages.text('error.ownerWithdrawsOwner'));
  const deleted = await services.db
    .deleteFrom('organization_invitations')
    .where('id', '=', invitation.id)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  // Accepted (or withdrawn) in the meantime.
  if (Number(deleted.numDeletedRows) !== 1)
    throw new NotFoundError(organizationsMessages.text('error.invitationNotFound'));
  return invitation.email;
}

/**
 * `user` accepts the invitation `token` names (with `proof` proving an unconfirmed address): the
 * organization joined, with the user's role there (an existing member keeps theirs).
 */
export async function acceptInvitation(
  services: CitadelServices,
  origin: ChangeOrigin,
  user: Caller['user'],
  token: string,
  proof: string | undefined,
): Promise<{ id: number; name: string; slug: string; role: string }> {
  const { db, clock } = services;
  const now = clock.now();
  const gone = () => new NotFoundError(GONE);
  const invitation = await unusedInvitationByToken(db, now, token);
  if (!invitation) throw gone();
  // Only the invited address, proved by its owner, joins: the link alone is not enough.
  if (!sameAddress(user.email, invitation.email)) throw new ForbiddenError(OTHER_ADDRESS);
  if (user.email_verified_at === null) {
    if (proof === undefined || !(await claimProof(db, user, proof, now)))
      throw new ForbiddenError(
        proof === undefined ? UNCONFIRMED : organizationsMessages.text('error.proofInvalid'),
        { action: EMAIL_UNCONFIRMED_ACTION },
      );
    await services.users.markEmailVerified(user.id);
  }
  const at = now.toISOString();
  const role = await retryOnDeadlock(() =>
    db.transaction().execute(async (trx) => {
      // Role changes and removals lock the same row: the inviter's rights are read as they
      // stand when the invitation is claimed.
      if (!(await lockOrganization(trx, services.dialect, invitation.organization_id))) throw gone();
      const inviter = await membershipOf(trx, invitation.invited_by, invitation.organization_id);
      if (!mayInviteAs(inviter?.role, invitation.role)) throw gone();
      // Single use: of two accepts at once, one claims the row.
      const claimed = await trx
        .updateTable('organization_invitations')
        .set({ used_at: at })
        .where('id', '=', invitation.id)
        .where('used_at', 'is', null)
        .where('expires_at', '>', at)
        .executeTakeFirst();
      if (Number(claimed.numUpdatedRows) !== 1) throw gone();
      const existing = await membershipOf(trx, user.id, invitation.organization_id);
      if (existing) return existing.role;
      await trx
        .insertInto('organization_members')
        .values({
          organization_id: invitation.organization_id,
          user_id: user.id,
          role: invitation.role,
          created_at: at,
        })
        .execute();
      const detail = { organization_id: invitation.organization_id, role: invitation.role };
      await recordEvent(services, trx, origin, user.id, 'organization_invitation_accepted', detail);
      await recordEvent(services, trx, origin, user.id, 'organization_member_added', detail);
      return invitation.role;
    }),
  );
  return { id: invitation.organization_id, name: invitation.name, slug: invitation.slug, role };
}

/**
 * A one-use proof for `user`'s unconfirmed address, which the invitation `token` was sent to;
 * the proof's token and the organization's name. 409 when the address is already confirmed.
 */
export async function createEmailProof(
  services: CitadelServices,
  user: Caller['user'],
  token: string,
): Promise<{ proof: string; organization: string }> {
  const { db, clock } = services;
  const now = clock.now();
  const invitation = await invitationByToken(db, now, token);
  if (!invitation) throw new NotFoundError(GONE);
  if (!sameAddress(user.email, invitation.email)) throw new ForbiddenError(OTHER_ADDRESS);
  if (user.email_verified_at !== null)
    throw new ConflictError(organizationsMessages.text('error.alreadyConfirmed'));
  const proof = randomToken(32);
  await insertReturningId(db, 'organization_email_proofs', {
    user_id: user.id,
    email: normalizeEmail(user.email),
    token_hash: sha256Hex(proof),
    expires_at: new Date(now.getTime() + EMAIL_PROOF_TTL_SECONDS * 1000).toISOString(),
    used_at: null,
    created_at: now.toISOString(),
  });
  return { proof, organization: invitation.name };
}
