import { Type } from '@sinclair/typebox';
import {
  ForbiddenError,
  ValidationError,
  composeMail,
  defineEndpoint,
  Envelope,
  ACTIVE_ORGANIZATION_KEY,
  forgetTenant,
  type EndpointInput,
  MAX_ROW_ID,
  rowIdFromText,
} from '../../plugin-api.ts';
import type { RolePermissions } from './roles.ts';
import {
  organizationPage,
  organizationsPage,
  roleName,
  type OrganizationPageProps,
  type OrganizationsPageProps,
} from './pages.ts';
import {
  changeMemberRole,
  createOrganization,
  deleteOrganization,
  freeSlug,
  membersOf,
  membershipOf,
  organizationsOf,
  removeFromOrganization,
  slugTaken,
  updateOrganization,
} from './service.ts';
import { isManagerRole, OrganizationWithRole, parseId, requireMember } from './access.ts';
import { invitationEndpoints, invitationLinkUrl } from './invitations.ts';
import { createInvitation, invitationsOf } from './invitations-service.ts';
import { organizationsMessages } from './messages/index.ts';

/** At most this many invitations per organization per hour. */
export const INVITATIONS_PER_HOUR = 10;

const SLUG_PATTERN = '^[a-z0-9]+(-[a-z0-9]+)*$';

const OrganizationSchema = Type.Object({ id: Type.Integer(), name: Type.String(), slug: Type.String() });
const MemberSchema = Type.Object({
  user: Type.Object({ id: Type.Integer(), username: Type.String(), email: Type.String() }),
  role: Type.String(),
  created_at: Type.String(),
});
const IdParams = Type.Object({ id: Type.String({ maxLength: 20 }) });
const MemberParams = Type.Object({
  id: Type.String({ maxLength: 20 }),
  userId: Type.String({ maxLength: 20 }),
});
const Name = Type.String({ minLength: 1, maxLength: 100 });
const Slug = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: SLUG_PATTERN,
  'x-message': 'A slug is lower-case letters, digits and single dashes (my-team).',
});

/** A slug made of a name: lower-case ASCII letters and digits, dashes between words. */
export function slugify(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48)
    .replace(/-+$/, '');
  return slug || 'organization';
}

function activeOf(input: EndpointInput): number | null {
  return input.session.get<number>(ACTIVE_ORGANIZATION_KEY) ?? null;
}

async function listProps(input: EndpointInput): Promise<OrganizationsPageProps> {
  if (!input.caller) return { organizations: [], active: null };
  return {
    organizations: await organizationsOf(input.services.db, input.caller.user.id),
    active: activeOf(input),
  };
}

export { organizationsOf };

/** The organization endpoints, for the roles of the plugin's options. */
export function organizationEndpoints(roles: RolePermissions) {
  const roleNames = [...roles.keys()];
  const Role = Type.String({ maxLength: 32, description: `One of: ${roleNames.join(', ')}` });
  const detailProps = async (input: EndpointInput<{ id?: string }>): Promise<OrganizationPageProps> => {
    const { services, caller } = input;
    const id = rowIdFromText(input.params.id);
    const member = caller && id !== null ? await membershipOf(services.db, caller.user.id, id) : undefined;
    if (!member) return { organization: null, members: [], invitations: [], roles: roleNames, active: null };
    const invitations = isManagerRole(member.role)
      ? await invitationsOf(services.db, services.clock.now(), member.id)
      : [];
    return {
      organization: member,
      members: await membersOf(services.db, member.id),
      invitations,
      roles: roleNames,
      active: activeOf(input),
    };
  };
  const checkRole = (role: string) => {
    if (!roles.has(role))
      throw new ValidationError({
        role: organizationsMessages.text('error.roleOneOf', { roles: roleNames.join(', ') }),
      });
  };

  const create = defineEndpoint({
    method: 'POST',
    path: '/organizations',
    action: 'organizations.create',
    auth: 'session',
    ability: 'organizations:create',
    summary: 'Create an organization (the caller becomes its owner and acts in it)',
    body: Type.Object({ name: Name, slug: Type.Optional(Slug) }),
    rateLimit: { name: 'organizations:create:user', max: 20, windowSeconds: 3600, per: 'user' },
    responses: { 201: Envelope({ data: Type.Object({ organization: OrganizationSchema }) }) },
    page: organizationsPage,
    pageProps: listProps,
    async handler(input) {
      const { body, caller, services, session } = input;
      const { db } = services;
      const name = body.name.trim();
      if (name === '') throw new ValidationError({ name: organizationsMessages.text('error.nameBlank') });
      if (body.slug !== undefined && (await slugTaken(db, body.slug)))
        throw new ValidationError({ slug: organizationsMessages.text('error.slugTaken') });
      const slug = body.slug ?? (await freeSlug(db, slugify(name)));
      const id = await createOrganization(services, input, caller.user.id, { name, slug });
      if (caller.via === 'session') {
        session.set(ACTIVE_ORGANIZATION_KEY, id);
        forgetTenant(input);
      }
      return {
        status: 'success',
        statusCode: 201,
        message: organizationsMessages.text('answer.created', { name }),
        data: { organization: { id, name, slug } },
        redirect_to: `/organizations/${id}`,
      };
    },
  });

  const index = defineEndpoint({
    method: 'GET',
    path: '/organizations',
    action: 'organizations.index',
    auth: 'session',
    ability: 'organizations:read',
    summary: "The caller's organizations, with the caller's role in each",
    responses: { 200: Envelope({ data: Type.Object({ organizations: Type.Array(OrganizationWithRole) }) }) },
    page: organizationsPage,
    pageProps: listProps,
    async handler({ caller, services }) {
      const organizations = await organizationsOf(services.db, caller.user.id);
      return { status: 'success', data: { organizations }, render: true };
    },
  });

  const show = defineEndpoint({
    method: 'GET',
    path: '/organizations/:id',
    action: 'organizations.show',
    auth: 'session',
    ability: 'organizations:read',
    orgRole: 'member',
    summary: 'One of the caller’s organizations and its members',
    params: IdParams,
    failures: [404],
    responses: {
      200: Envelope({
        data: Type.Object({ organization: OrganizationWithRole, members: Type.Array(MemberSchema) }),
      }),
    },
    page: organizationPage,
    pageProps: detailProps,
    async handler({ membership: member, services }) {
      const members = await membersOf(services.db, member.id);
      return { status: 'success', data: { organization: member, members }, render: true };
    },
  });

  const update = defineEndpoint({
    method: 'PATCH',
    path: '/organizations/:id',
    action: 'organizations.update',
    auth: 'session',
    ability: 'organizations:update',
    orgRole: 'admin',
    summary: 'Rename an organization or change its slug (owner, admin)',
    params: IdParams,
    body: Type.Object({ name: Type.Optional(Name), slug: Type.Optional(Slug) }),
    failures: [403, 404],
    responses: { 200: Envelope({ data: Type.Object({ organization: OrganizationSchema }) }) },
    async handler({ membership: member, body, services }) {
      const changes: { name?: string; slug?: string } = {};
      if (body.name !== undefined) {
        changes.name = body.name.trim();
        if (changes.name === '')
          throw new ValidationError({ name: organizationsMessages.text('error.nameBlank') });
      }
      if (body.slug !== undefined) {
        if (await slugTaken(services.db, body.slug, member.id))
          throw new ValidationError({ slug: organizationsMessages.text('error.slugTaken') });
        changes.slug = body.slug;
      }
      if (Object.keys(changes).length > 0) {
        await updateOrganization(services.db, member.id, changes);
      }
      const organization = {
        id: member.id,
        name: changes.name ?? member.name,
        slug: changes.slug ?? member.slug,
      };
      return {
        status: 'success',
        message: organizationsMessages.text('answer.updated'),
        data: { organization },
      };
    },
  });

  const remove = defineEndpoint({
    method: 'DELETE',
    path: '/organizations/:id',
    aliases: [{ method: 'POST', path: '/organizations/:id/delete' }],
    action: 'organizations.delete',
    auth: 'sudo',
    ability: 'organizations:delete',
    orgRole: 'owner',
    impersonation: 'forbidden',
    summary: 'Delete an organization and its tenant rows (owner, sudo)',
    params: IdParams,
    failures: [403, 404],
    responses: { 200: Envelope() },
    async handler(input) {
      const { membership: member, caller, services, session } = input;
      await deleteOrganization(services, input, member.id);
      if (caller.via === 'session' && session.get(ACTIVE_ORGANIZATION_KEY) === member.id) {
        session.delete(ACTIVE_ORGANIZATION_KEY);
        forgetTenant(input);
      }
      return {
        status: 'success',
        message: organizationsMessages.text('answer.deleted', { name: member.name }),
        redirect_to: '/organizations',
      };
    },
  });

  const invite = defineEndpoint({
    method: 'POST',
    path: '/organizations/:id/invitations',
    action: 'organizations.invite',
    auth: 'session',
    ability: 'organizations:update',
    orgRole: 'admin',
    impersonation: 'forbidden',
    summary: 'Invite someone by email (owner, admin; an owner only by an owner)',
    params: IdParams,
    failures: [403, 404],
    body: Type.Object({ email: Type.String({ format: 'email', maxLength: 191 }), role: Role }),
    // Per user here; per organization (10 an hour) once the caller is known to manage it.
    rateLimit: { name: 'organizations:invite:user', max: 30, windowSeconds: 3600, per: 'user' },
    page: organizationPage,
    pageProps: detailProps,
    responses: {
      201: Envelope({
        data: Type.Object({
          invitation: Type.Object({
            id: Type.Integer(),
            email: Type.String(),
            role: Type.String(),
            expires_at: Type.String(),
          }),
        }),
      }),
    },
    async handler({ membership: member, body, caller, services, language }) {
      checkRole(body.role);
      if (body.role === 'owner' && member.role !== 'owner')
        throw new ForbiddenError(organizationsMessages.text('error.ownerInvitesOwner'));
      // The invitee may have no account yet: the email is in the inviter's language.
      const t = organizationsMessages.in(language);
      // Counted only for the organization's managers: nobody else can use up its invitations.
      await services.rateLimiter.consume(`organizations:invite:${member.id}`, INVITATIONS_PER_HOUR, 3600);
      const { config } = services;
      const email = body.email.trim();
      const { id, token, expiresAt } = await createInvitation(services, {
        organizationId: member.id,
        email,
        role: body.role,
        invitedBy: caller.user.id,
      });
      const url = invitationLinkUrl(config.appUrl, token);
      await services.mailer.send(
        composeMail(
          email,
          {
            subject: t('mail.invite.subject', { name: member.name }),
            intro: t('mail.invite.intro', {
              inviter: caller.user.username,
              name: member.name,
              role: roleName(t, body.role),
              email,
            }),
            link: { url, label: t('mail.invite.link', { name: member.name }) },
            outro: t('mail.invite.outro'),
          },
          language,
        ),
      );
      return {
        status: 'success',
        statusCode: 201,
        message: organizationsMessages.text('answer.invited', { email }),
        data: { invitation: { id, email, role: body.role, expires_at: expiresAt } },
        redirect_to: `/organizations/${member.id}`,
      };
    },
  });

  const {
    link: invitationLink,
    list: listInvitations,
    revoke: revokeInvitation,
    accept,
    sendProof,
  } = invitationEndpoints(detailProps);

  const updateMember = defineEndpoint({
    method: 'PATCH',
    path: '/organizations/:id/members/:userId',
    aliases: [{ method: 'POST', path: '/organizations/:id/members/:userId/role' }],
    action: 'organizations.member_update',
    auth: 'session',
    ability: 'organizations:update',
    orgRole: 'admin',
    impersonation: 'forbidden',
    summary: "Change a member's role (owner, admin; only an owner touches an owner)",
    params: MemberParams,
    failures: [403, 404, 409],
    body: Type.Object({ role: Role }),
    responses: { 200: Envelope() },
    async handler(input) {
      const { params, body, membership, services } = input;
      const organizationId = membership.id;
      const userId = parseId(params.userId, 'member');
      checkRole(body.role);
      await changeMemberRole(services, input, membership, userId, body.role);
      return {
        status: 'success',
        message: organizationsMessages.text('answer.roleChanged'),
        redirect_to: `/organizations/${organizationId}`,
      };
    },
  });

  const removeMember = defineEndpoint({
    method: 'DELETE',
    path: '/organizations/:id/members/:userId',
    aliases: [{ method: 'POST', path: '/organizations/:id/members/:userId/remove' }],
    action: 'organizations.member_remove',
    auth: 'session',
    ability: 'organizations:update',
    orgRole: 'member',
    impersonation: 'forbidden',
    summary: 'Remove a member (owner, admin; only an owner removes an owner; anyone may leave)',
    params: MemberParams,
    failures: [403, 404, 409],
    responses: { 200: Envelope() },
    async handler(input) {
      const { params, caller, membership, services, session } = input;
      const organizationId = membership.id;
      const userId = parseId(params.userId, 'member');
      const self = userId === caller.user.id;
      await removeFromOrganization(services, input, membership, userId, self);
      if (self && session.get(ACTIVE_ORGANIZATION_KEY) === organizationId) {
        session.delete(ACTIVE_ORGANIZATION_KEY);
        forgetTenant(input);
      }
      return {
        status: 'success',
        message: self
          ? organizationsMessages.text('answer.left')
          : organizationsMessages.text('answer.removed'),
        redirect_to: self ? '/organizations' : `/organizations/${organizationId}`,
      };
    },
  });

  const setActive = defineEndpoint({
    method: 'POST',
    path: '/organizations/active',
    action: 'organizations.active',
    auth: 'session',
    // A token acts in the organization it was made for; only a session switches.
    bearer: false,
    summary: 'Choose the organization the session acts in (or none)',
    failures: [404],
    body: Type.Object({
      organization_id: Type.Union(
        [Type.Integer({ minimum: 1, maximum: MAX_ROW_ID }), Type.Null(), Type.String({ maxLength: 20 })],
        {
          description: 'An organization of the caller, or null for none',
        },
      ),
    }),
    responses: {
      200: Envelope({ data: Type.Object({ organization: Type.Union([OrganizationWithRole, Type.Null()]) }) }),
    },
    async handler(input) {
      const { body, caller, services, session } = input;
      const raw = body.organization_id;
      forgetTenant(input);
      if (raw === null || raw === '') {
        session.delete(ACTIVE_ORGANIZATION_KEY);
        return {
          status: 'success',
          message: organizationsMessages.text('answer.noActive'),
          data: { organization: null },
        };
      }
      const id = typeof raw === 'number' ? raw : rowIdFromText(raw);
      // Out of the id column's range: no organization has it (and no database is asked).
      if (id === null)
        throw new ValidationError({
          organization_id: organizationsMessages.text('error.noSuchOrganization'),
        });
      const member = await requireMember(services, caller, id);
      session.set(ACTIVE_ORGANIZATION_KEY, member.id);
      return {
        status: 'success',
        message: organizationsMessages.text('answer.actingIn', { name: member.name }),
        data: { organization: member },
        redirect_to: `/organizations/${member.id}`,
      };
    },
  });

  return [
    create,
    index,
    setActive,
    accept,
    sendProof,
    invitationLink,
    show,
    update,
    remove,
    invite,
    listInvitations,
    revokeInvitation,
    updateMember,
    removeMember,
  ] as const;
}
