import { Type } from '@sinclair/typebox';
import { definePlugin } from '../../plugin-api.ts';
import { organizationEmailProofsMigration, organizationsMigration } from './migrations.ts';
import { organizationEndpoints, organizationsOf } from './routes.ts';
import { switcher } from './pages.ts';
import { ORGANIZATION_ERROR_CODES, ORGANIZATION_EVENTS } from './events.ts';
import { compileRoles } from './roles.ts';
import { activeOrganizationId, createTenancy, membershipOf, noteSessionOrganization } from './service.ts';
import { organizationsMessages } from './messages/index.ts';

/** The options of `organizations()`: the permissions of `member` and of the application's own roles. */
export interface OrganizationsOptions {
  /**
   * Permissions of `member` and of custom roles, written like token abilities (`projects:read`,
   * `projects:*`, `*`). `owner` and `admin` hold `*`; `member` holds nothing unless given here.
   */
  roles?: Readonly<Record<string, readonly string[]>>;
}

/**
 * Organizations, members, roles and invitations, and the active organization that tenant-scoped
 * resources (`defineResource({ tenant: 'organization_id' })`) act in.
 */
export function organizations(options: OrganizationsOptions = {}) {
  const roles = compileRoles(options.roles);
  return definePlugin({
    id: 'organizations',
    options,
    migrations: [organizationsMigration, organizationEmailProofsMigration],
    tables: [
      'organizations',
      'organization_members',
      'organization_invitations',
      'organization_email_proofs',
    ],
    endpoints: organizationEndpoints(roles),
    tenancy: createTenancy(roles),
    hooks: {
      request: noteSessionOrganization,
      pageHeader: switcher(organizationsOf),
      after: [
        {
          // GET /me names the organization the caller acts in.
          match: { action: 'me' },
          schema: {
            fields: {
              organization: Type.Union(
                [
                  Type.Object({
                    id: Type.Integer(),
                    name: Type.String(),
                    slug: Type.String(),
                    role: Type.String(),
                  }),
                  Type.Null(),
                ],
                { description: 'The organization the caller acts in (organizations plugin), or null' },
              ),
            },
          },
          handler({ caller, services }) {
            if (!caller) return undefined;
            const id = activeOrganizationId(caller);
            // No active organization (most callers): answered without a read or a promise.
            if (id === null) return { fields: { organization: null } };
            return membershipOf(services.db, caller.user.id, id).then((member) => ({
              fields: { organization: member ?? null },
            }));
          },
        },
      ],
    },
    events: ORGANIZATION_EVENTS,
    messages: organizationsMessages,
    errorCodes: ORGANIZATION_ERROR_CODES,
  });
}
