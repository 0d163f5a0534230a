import { Type } from '@sinclair/typebox';
import { definePlugin, givenOptions, grantAdminEmails } from '../../plugin-api.ts';
import { adminEndpoints } from './routes.ts';
import { impersonationEndWatcher, markImpersonation } from './impersonation.ts';
import { adminHeaderLink } from './pages.ts';
import { ADMIN_EVENTS } from './events.ts';
import { adminMessages } from './messages/index.ts';
import { ADMIN_ID, adminDefaults, adminOptions, resolveAdminOptions, type AdminOptions } from './options.ts';

/**
 * Administration: the users list with search, disabling and enabling an
 * account, signing a user out everywhere, and acting as a user (impersonation) with a banner on
 * every page. Every endpoint needs the admin role (403 otherwise), every change sudo as well; each
 * action is a security event of the user concerned, with the admin's id.
 * `admin({ impersonationMinutes: 15 })`.
 */
export function admin(options: Partial<AdminOptions> = {}) {
  return definePlugin({
    id: ADMIN_ID,
    // Sudo guards every change. The account center records the sign-ins the users list shows
    // (last_sign_in_at) and shows users the events of what an admin did to their account.
    dependencies: ['sudo', 'account-center'],
    options: { ...adminDefaults, ...givenOptions(options) },
    resolveOptions: (config) => resolveAdminOptions(options, config),
    endpoints: adminEndpoints,
    // `adminEmails` (ADMIN_EMAILS): accounts that have proved a listed address get the admin role
    // at start, and any that proves one later at that moment.
    async init({ db, services }) {
      const { adminEmails } = adminOptions(services);
      services.users.grantAdminOnProof(adminEmails);
      const listed = await grantAdminEmails(db, adminEmails.join(','));
      if (listed.length > 0)
        services.log.info({ listed: listed.length }, 'ADMIN_EMAILS: proved accounts are admins');
    },
    hooks: {
      request: markImpersonation,
      sessionEnded: impersonationEndWatcher,
      pageHeader: adminHeaderLink,
      after: [
        {
          // GET /me says who is acting as the caller, while an administrator impersonates them.
          match: { action: 'me' },
          schema: {
            fields: {
              impersonator: Type.Object(
                { id: Type.Integer(), username: Type.String() },
                { description: 'The administrator acting as this user (admin plugin), while impersonating' },
              ),
            },
          },
          handler: ({ caller }) =>
            caller?.via === 'session' && caller.impersonator
              ? { fields: { impersonator: caller.impersonator } }
              : undefined,
        },
      ],
    },
    events: ADMIN_EVENTS,
    messages: adminMessages,
  });
}
