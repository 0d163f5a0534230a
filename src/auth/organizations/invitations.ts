import { Type } from '@sinclair/typebox';
import type { Kysely } from 'kysely';
import { ConflictError, ForbiddenError, NotFoundError } from '../../core/errors.ts';
import { randomToken, sha256Hex } from '../../core/crypto.ts';
import type { Database } from '../../db/schema.ts';
import { insertReturningId } from '../../db/insert.ts';
import { retryOnDeadlock } from '../../db/retry.ts';
import { composeMail } from '../../mail/templates.ts';
import type { Caller } from '../../http/security/caller.ts';
import type { CitadelServices } from '../core/services.ts';
import { defineEndpoint, type EndpointInput, type EndpointRateLimit } from '../core/endpoint.ts';
import { Envelope } from '../core/envelope-schema.ts';
import { normalizeEmail } from '../core/users.ts';
import { ACTIVE_ORGANIZATION_KEY, forgetTenant } from '../core/tenancy.ts';
import { mayInviteAs, OrganizationWithRole, parseId } from './access.ts';
import {
  invitationPage,
  organizationPage,
  type InvitationPageProps,
  type OrganizationPageProps,
} from './pages.ts';
import { lockOrganization, membershipOf, recordEvent } from './service.ts';

/** Invitations work for seven days, once. */
export const INVITATION_TTL_SECONDS = 7 * 24 * 3600;
/** A link proving the address works for a day, once. */
export const EMAIL_PROOF_TTL_SECONDS = 24 * 3600;
/** The envelope's `action` of an accept refused until the invited address is proved. */
export const EMAIL_UNCONFIRMED_ACTION = 'organizations.email_unconfirmed';
/** Tokens are base64url of 32 random bytes: 43 characters. Anything longer is not ours. */
export const MAX_TOKEN_LENGTH = 128;

const GONE = 'This invitation is invalid, was revoked, was already used or has expired.';
const OTHER_ADDRESS =
  'This invitation was sent to another address: sign in with the account whose confirmed email received it.';
const UNCONFIRMED =
  'Confirm your email address first: the invitation page sends you a link that confirms it, then the same invitation link lets you join.';

const TokenText = (description: string) =>
  Type.String({ 'x-raw': true, maxLength: MAX_TOKEN_LENGTH, description });

const InvitationSchema = Type.Object({
  id: Type.Integer(),
  email: Type.String(),
  role: Type.String(),
  invited_by: Type.Integer({ description: 'The id of the member who sent it' }),
  expires_at: Type.String(),
});
const InvitationParams = Type.Object({
  id: Type.String({ maxLength: 20 }),
  invitationId: Type.String({ maxLength: 20 }),
});

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
function invitationByToken(db: Kysely<Database>, now: Date, token: string) {
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

function sameAddress(a: string, b: string): boolean {
  return normalizeEmail(a) === normalizeEmail(b);
}

/** What the invitation link's page shows for this caller (and, from the confirmation mail, `proof`). */
export async function invitationProps(
  services: CitadelServices,
  token: string,
  caller: Caller | null,
  proof?: unknown,
): Promise<InvitationPageProps> {
  const dead: InvitationPageProps = {
    token: '',
    proof: '',
    organization: null,
    state: 'anonymous',
    email: '',
  };
  if (token.length === 0 || token.length > MAX_TOKEN_LENGTH) return dead;
  const found = await invitationByToken(services.db, services.clock.now(), token);
  if (!found) return dead;
  const user = caller?.user;
  const state = !user
    ? 'anonymous'
    : !sameAddress(user.email, found.email)
      ? 'other_address'
      : user.email_verified_at === null
        ? 'unconfirmed'
        : 'ready';
  const proofText = typeof proof === 'string' && proof.length <= MAX_TOKEN_LENGTH ? proof : '';
  return { token, proof: proofText, organization: found.name, state, email: user?.email ?? '' };
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

/** The send limits of registration and sign-in links: per client address and per email address. */
const proofSendLimits: EndpointRateLimit[] = [
  {
    name: 'send:organization-email-proof:ip',
    max: ({ config }) => config.limits.sendsPerIp,
    windowSeconds: ({ config }) => config.limits.sendWindow,
    per: 'ip',
  },
  {
    name: 'send:organization-email-proof:address',
    max: ({ config }) => config.limits.sendsPerAddress,
    windowSeconds: ({ config }) => config.limits.sendWindow,
    per: (input) => (input.caller ? normalizeEmail(input.caller.user.email) : undefined),
  },
];

/** The invitation endpoints of the organizations plugin: list, revoke, accept, prove the address. */
export function invitationEndpoints(
  detailProps: (input: EndpointInput<{ id?: string }>) => Promise<OrganizationPageProps>,
) {
  const linkProps = (input: EndpointInput<unknown, unknown, { token?: string; proof?: string }>) =>
    invitationProps(input.services, input.body.token ?? '', input.caller, input.body.proof);

  const list = defineEndpoint({
    method: 'GET',
    path: '/organizations/:id/invitations',
    action: 'organizations.invitations',
    auth: 'session',
    ability: 'organizations:read',
    orgRole: 'admin',
    summary: "An organization's pending invitations (owner, admin)",
    params: Type.Object({ id: Type.String({ maxLength: 20 }) }),
    failures: [403, 404],
    responses: { 200: Envelope({ data: Type.Object({ invitations: Type.Array(InvitationSchema) }) }) },
    page: organizationPage,
    pageProps: detailProps,
    async handler({ membership: member, services }) {
      const rows = await invitationsOf(services.db, services.clock.now(), member.id);
      const invitations = rows.map(({ id, email, role, invited_by, expires_at }) => ({
        id,
        email,
        role,
        invited_by,
        expires_at,
      }));
      return { status: 'success', data: { invitations }, render: true };
    },
  });

  const revoke = defineEndpoint({
    method: 'DELETE',
    path: '/organizations/:id/invitations/:invitationId',
    aliases: [{ method: 'POST', path: '/organizations/:id/invitations/:invitationId/revoke' }],
    action: 'organizations.invitation_revoked',
    auth: 'session',
    ability: 'organizations:update',
    orgRole: 'admin',
    impersonation: 'forbidden',
    summary: 'Withdraw a pending invitation (owner, admin; an owner invitation only by an owner)',
    params: InvitationParams,
    failures: [403, 404],
    responses: { 200: Envelope() },
    page: organizationPage,
    pageProps: detailProps,
    async handler({ params, membership: member, services }) {
      const organizationId = member.id;
      const invitationId = parseId(params.invitationId, 'Invitation');
      const invitation = await pendingInvitations(services.db, services.clock.now())
        .select(['i.id', 'i.role', 'i.email'])
        .where('i.id', '=', invitationId)
        .where('i.organization_id', '=', organizationId)
        .executeTakeFirst();
      if (!invitation) throw new NotFoundError('Invitation not found.');
      if (invitation.role === 'owner' && member.role !== 'owner')
        throw new ForbiddenError('Only an owner may withdraw an owner invitation.');
      const deleted = await services.db
        .deleteFrom('organization_invitations')
        .where('id', '=', invitation.id)
        .where('used_at', 'is', null)
        .executeTakeFirst();
      // Accepted (or withdrawn) in the meantime.
      if (Number(deleted.numDeletedRows) !== 1) throw new NotFoundError('Invitation not found.');
      return {
        status: 'success',
        message: `The invitation to ${invitation.email} was withdrawn.`,
        redirect_to: `/organizations/${organizationId}`,
      };
    },
  });

  const accept = defineEndpoint({
    method: 'POST',
    path: '/organizations/invitations/accept',
    action: 'organizations.join',
    auth: 'session',
    ability: 'organizations:update',
    impersonation: 'forbidden',
    summary: 'Accept an invitation (the signed-in user whose proved email it was sent to)',
    description:
      'An account holding the invited address without having proved it gets 403 `organizations.email_unconfirmed`; `proof` (from the link POST /organizations/invitations/confirmation emails) proves it and joins at once.',
    body: Type.Object({
      token: TokenText('The token of the invitation link'),
      proof: Type.Optional(TokenText('The token of the emailed link that proves the address')),
    }),
    secrets: ['token', 'proof'],
    rateLimit: { name: 'organizations:accept:user', max: 30, windowSeconds: 3600, per: 'user' },
    failures: [403, 404],
    responses: { 200: Envelope({ data: Type.Object({ organization: OrganizationWithRole }) }) },
    page: invitationPage,
    pageProps: linkProps,
    async handler(input) {
      const { body, caller, services, session } = input;
      const { db, clock } = services;
      const user = caller.user;
      const now = clock.now();
      const gone = () => new NotFoundError(GONE);
      const invitation = await unusedInvitationByToken(db, now, body.token);
      if (!invitation) throw gone();
      // Only the invited address, proved by its owner, joins: the link alone is not enough.
      if (!sameAddress(user.email, invitation.email)) throw new ForbiddenError(OTHER_ADDRESS);
      if (user.email_verified_at === null) {
        if (body.proof === undefined || !(await claimProof(db, user, body.proof, now)))
          throw new ForbiddenError(
            body.proof === undefined
              ? UNCONFIRMED
              : 'This confirmation link is invalid, was already used or has expired: ask for a new one on the invitation page.',
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
          await recordEvent(services, trx, input, user.id, 'organization_invitation_accepted', detail);
          await recordEvent(services, trx, input, user.id, 'organization_member_added', detail);
          return invitation.role;
        }),
      );
      const organization = {
        id: invitation.organization_id,
        name: invitation.name,
        slug: invitation.slug,
        role,
      };
      // A session acting in no organization acts in the one it just joined.
      if (caller.via === 'session' && session.get(ACTIVE_ORGANIZATION_KEY) === undefined) {
        session.set(ACTIVE_ORGANIZATION_KEY, organization.id);
        forgetTenant(input);
      }
      return {
        status: 'success',
        message: `You joined ${invitation.name}.`,
        data: { organization },
        redirect_to: `/organizations/${invitation.organization_id}`,
      };
    },
  });

  const sendProof = defineEndpoint({
    method: 'POST',
    path: '/organizations/invitations/confirmation',
    action: 'organizations.confirmation_sent',
    auth: 'session',
    ability: 'organizations:update',
    impersonation: 'forbidden',
    summary: "Email a link that proves the caller's address, for an invitation sent to it",
    description:
      'For an account holding the invited address without having proved it: the link opens the invitation page, whose button proves the address and joins, in a session of this account.',
    body: Type.Object({ token: TokenText('The token of the invitation link') }),
    secrets: ['token'],
    rateLimit: proofSendLimits,
    failures: [403, 404, 409],
    responses: { 200: Envelope() },
    page: invitationPage,
    pageProps: linkProps,
    async handler({ body, caller, services }) {
      const { db, clock, config } = services;
      const user = caller.user;
      const now = clock.now();
      const invitation = await invitationByToken(db, now, body.token);
      if (!invitation) throw new NotFoundError(GONE);
      if (!sameAddress(user.email, invitation.email)) throw new ForbiddenError(OTHER_ADDRESS);
      if (user.email_verified_at !== null)
        throw new ConflictError('Your address is already confirmed: accept the invitation.');
      const proof = randomToken(32);
      await insertReturningId(db, 'organization_email_proofs', {
        user_id: user.id,
        email: normalizeEmail(user.email),
        token_hash: sha256Hex(proof),
        expires_at: new Date(now.getTime() + EMAIL_PROOF_TTL_SECONDS * 1000).toISOString(),
        used_at: null,
        created_at: now.toISOString(),
      });
      const url = `${config.appUrl}/organizations/invitations/${encodeURIComponent(body.token)}?proof=${encodeURIComponent(proof)}`;
      await services.mailer.send(
        composeMail(user.email, {
          subject: `Confirm your address to join ${invitation.name}`,
          intro: `Someone signed in as ${user.username} asked to confirm that ${user.email} is theirs, to join ${invitation.name}. Open the link within 24 hours while signed in as ${user.username} and press the button.`,
          link: { url, label: `Confirm and join ${invitation.name}` },
          outro: 'If it was not you, ignore this email: nothing changes.',
        }),
      );
      return {
        status: 'success',
        message: `A link that confirms ${user.email} is on its way. Open it while signed in to this account.`,
        // Browsers stay on the invitation's page (no token in a Location header).
        render: true,
      };
    },
  });

  return { list, revoke, accept, sendProof };
}
