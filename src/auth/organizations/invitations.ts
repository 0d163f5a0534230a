import { Type } from '@sinclair/typebox';
import {
  composeMail,
  type Caller,
  type CitadelServices,
  defineEndpoint,
  type EndpointInput,
  type EndpointRateLimit,
  Envelope,
  normalizeEmail,
  ACTIVE_ORGANIZATION_KEY,
  forgetTenant,
} from '../../plugin-api.ts';
import { OrganizationWithRole, parseId } from './access.ts';
import {
  invitationPage,
  organizationPage,
  type InvitationPageProps,
  type OrganizationPageProps,
} from './pages.ts';
import {
  acceptInvitation,
  createEmailProof,
  invitationByToken,
  invitationsOf,
  revokeInvitation,
  sameAddress,
} from './invitations-service.ts';

export {
  EMAIL_PROOF_TTL_SECONDS,
  EMAIL_UNCONFIRMED_ACTION,
  INVITATION_TTL_SECONDS,
  invitationsOf,
  pendingInvitations,
} from './invitations-service.ts';
import { organizationsMessages } from './messages/index.ts';

/** The emailed invitation link's path: `{appUrl}/organizations/invitations/links/{token}`. */
export const INVITATION_LINK_PATH = '/organizations/invitations/links/:token';

/** The invitation link to mail, with `proof` when it also proves the address. */
export function invitationLinkUrl(appUrl: string, token: string, proof?: string): string {
  const url = `${appUrl}${INVITATION_LINK_PATH.replace(':token', encodeURIComponent(token))}`;
  return proof === undefined ? url : `${url}?proof=${encodeURIComponent(proof)}`;
}

/** A page's declaration, marked so that the typed client has no method for it. */
const pageOnly = <E extends object>(endpoint: E) => ({ ...endpoint, pageOnly: true as const });

/** Tokens are base64url of 32 random bytes: 43 characters. Anything longer is not ours. */
export const MAX_TOKEN_LENGTH = 128;

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

  // A browser page: the typed client has no method for it.
  const link = pageOnly(
    defineEndpoint({
      method: 'GET',
      path: INVITATION_LINK_PATH,
      // Links mailed before this path existed keep working.
      aliases: [{ method: 'GET', path: '/organizations/invitations/:token' }],
      action: 'organizations.invitation',
      auth: 'optional',
      summary: 'The emailed invitation link: a page whose button accepts it',
      description:
        'Opening the link changes nothing (mail scanners open links). `proof` comes from the link POST /organizations/invitations/confirmation emails. Accept with POST /organizations/invitations/accept.',
      params: Type.Object({ token: TokenText('The token of the invitation link') }),
      query: Type.Object({
        proof: Type.Optional(TokenText('The token of the emailed link that proves the address')),
      }),
      secrets: ['token', 'proof'],
      failures: [404],
      responses: { 200: Envelope() },
      page: invitationPage,
      pageProps: (input) =>
        invitationProps(input.services, input.params.token ?? '', input.caller, input.query.proof),
      async handler({ params, services }) {
        const found = await invitationByToken(services.db, services.clock.now(), params.token);
        if (!found)
          return {
            status: 'error',
            statusCode: 404,
            message: organizationsMessages.text('answer.invitationInvalid'),
            render: true,
          };
        return {
          status: 'info',
          message: organizationsMessages.text('answer.acceptWith'),
          render: true,
        };
      },
    }),
  );

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
      const invitationId = parseId(params.invitationId, 'invitation');
      const email = await revokeInvitation(services, member, invitationId);
      return {
        status: 'success',
        message: organizationsMessages.text('answer.withdrawn', { email }),
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
      const organization = await acceptInvitation(services, input, caller.user, body.token, body.proof);
      // A session acting in no organization acts in the one it just joined.
      if (caller.via === 'session' && session.get(ACTIVE_ORGANIZATION_KEY) === undefined) {
        session.set(ACTIVE_ORGANIZATION_KEY, organization.id);
        forgetTenant(input);
      }
      return {
        status: 'success',
        message: organizationsMessages.text('answer.joined', { name: organization.name }),
        data: { organization },
        redirect_to: `/organizations/${organization.id}`,
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
    async handler({ body, caller, services, language }) {
      const { config } = services;
      const user = caller.user;
      const written = user.locale ? services.languages.get(user.locale) : language;
      const t = organizationsMessages.in(written);
      const { proof, organization } = await createEmailProof(services, user, body.token);
      const url = invitationLinkUrl(config.appUrl, body.token, proof);
      await services.mailer.send(
        composeMail(
          user.email,
          {
            subject: t('mail.proof.subject', { name: organization }),
            intro: t('mail.proof.intro', { username: user.username, email: user.email, name: organization }),
            link: { url, label: t('mail.proof.link', { name: organization }) },
            outro: t('mail.proof.outro'),
          },
          written,
        ),
      );
      return {
        status: 'success',
        message: organizationsMessages.text('answer.proofSent', { email: user.email }),
        // Browsers stay on the invitation's page (no token in a Location header).
        render: true,
      };
    },
  });

  return { link, list, revoke, accept, sendProof };
}
