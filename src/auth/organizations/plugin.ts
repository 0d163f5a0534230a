import { Type } from '@sinclair/typebox';
import { definePlugin } from '../../plugin.ts';
import { organizationsMigration } from './migrations.ts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { invitationProps, organizationEndpoints, organizationsOf } from './routes.ts';
import { invitationPage, switcher } from './pages.ts';
import { clientKind } from '../../http/negotiation.ts';
import { envelope, renderPage } from '../../http/respond.ts';

/**
 * GET /organizations/invitations/{token}, the emailed link: a page whose button accepts it
 * (opening the link changes nothing: mail scanners open links). Registered by hand rather than
 * declared: it is a browser page, and as an OpenAPI path it would be ambiguous with
 * `/organizations/{id}/invitations` (the contract names both). The token is a secret in the logs.
 */
function invitationLink(app: FastifyInstance): void {
  const props = (request: FastifyRequest) =>
    invitationProps(request.server, (request.params as { token: string }).token);
  app.get(
    '/organizations/invitations/:token',
    { config: { secrets: ['token'], pageProps: props } },
    async (request, reply) => {
      if (clientKind(request) === 'form') return renderPage(request, reply, invitationPage);
      const found = (await props(request)).organization !== null;
      return reply.code(found ? 200 : 404).send(
        envelope({
          action: 'organizations.invitation',
          status: found ? 'info' : 'error',
          statusCode: found ? 200 : 404,
          message: found
            ? 'Accept with POST /organizations/invitations/accept {token}.'
            : 'This invitation is invalid, was already used or has expired.',
        }),
      );
    },
  );
}
import { compileRoles } from './roles.ts';
import { activeOrganizationId, createTenancy, membershipOf, noteSessionOrganization } from './service.ts';

export interface OrganizationsOptions {
  /**
   * Permissions of `member` and of custom roles, written like token abilities (`projects:read`,
   * `projects:*`, `*`). `owner` and `admin` hold `*`; `member` holds nothing unless given here.
   */
  roles?: Readonly<Record<string, readonly string[]>>;
}

/**
 * Organizations, members, roles and invitations, and the active organization that tenant-scoped
 * resources (`defineResource({ tenant: 'organization_id' })`) act in (contract section 17).
 */
export function organizations(options: OrganizationsOptions = {}) {
  const roles = compileRoles(options.roles);
  return definePlugin({
    name: 'organizations',
    options,
    migrations: [organizationsMigration],
    endpoints: organizationEndpoints(roles),
    routes: invitationLink,
    tenancy: createTenancy(roles),
    events: { request: noteSessionOrganization },
    pageHeader: switcher((request, userId) => organizationsOf(request.server.db, userId)),
    meSchema: {
      organization: Type.Union(
        [
          Type.Object({ id: Type.Integer(), name: Type.String(), slug: Type.String(), role: Type.String() }),
          Type.Null(),
        ],
        { description: 'The organization the caller acts in (organizations plugin), or null' },
      ),
    },
    async extendMe(caller, db) {
      const id = activeOrganizationId(caller);
      const member = id === null ? undefined : await membershipOf(db, caller.user.id, id);
      return { organization: member ?? null };
    },
  });
}
