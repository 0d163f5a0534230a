import { Type } from '@sinclair/typebox';
import { definePlugin } from '../../plugin.ts';
import { givenOptions } from '../core/plugin-options.ts';
import { grantAdminEmails } from '../core/roles.ts';
import { adminEndpoints } from './routes.ts';
import { markImpersonation } from './impersonation.ts';
import { adminHeaderLink } from './pages.ts';
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
    // Sudo guards every change; the account center keeps the security events they are recorded as.
    dependencies: ['sudo', 'account-center'],
    options: { ...adminDefaults, ...givenOptions(options) },
    resolveOptions: (config) => resolveAdminOptions(options, config),
    endpoints: adminEndpoints,
    // At start: the accounts of `adminEmails` (ADMIN_EMAILS) get the admin role.
    async routes(app) {
      const granted = await grantAdminEmails(app.citadel.db, adminOptions(app.citadel).adminEmails.join(','));
      if (granted.length > 0) app.log.info({ admins: granted.length }, 'ADMIN_EMAILS: admin role granted');
    },
    events: { request: markImpersonation },
    pageHeader: adminHeaderLink,
    extendMe: async (caller) =>
      caller.via === 'session' && caller.impersonator ? { impersonator: caller.impersonator } : {},
    meSchema: {
      impersonator: Type.Object(
        { id: Type.Integer(), username: Type.String() },
        { description: 'The administrator acting as this user (admin plugin), while impersonating' },
      ),
    },
  });
}
