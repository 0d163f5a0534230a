import { definePlugin } from '../../plugin.ts';
import { grantAdminEmails } from '../core/roles.ts';
import { adminEndpoints } from './routes.ts';
import { markImpersonation } from './impersonation.ts';

/** The options of `admin()`. */
export interface AdminOptions {
  /** How long an impersonation lasts at most, in minutes (default 30). */
  impersonationMinutes?: number;
  /**
   * Accounts made admins at start (default: `ADMIN_EMAILS`, comma- or space-separated). An address
   * with no account yet is granted at a later start.
   */
  adminEmails?: readonly string[];
}

/**
 * Administration (contract section 18): the users list with search, disabling and enabling an
 * account, signing a user out everywhere, and acting as a user (impersonation) with a banner on
 * every page. Every endpoint needs the admin role (403 otherwise), every change sudo as well; each
 * action is a security event of the user concerned, with the admin's id.
 */
export function admin(options: AdminOptions = {}) {
  const minutes = options.impersonationMinutes ?? 30;
  if (!Number.isInteger(minutes) || minutes < 1)
    throw new TypeError('admin: impersonationMinutes must be a whole number of minutes, at least 1');
  return definePlugin({
    name: 'admin',
    // Sudo guards every change; the account center keeps the security events they are recorded as.
    dependencies: ['sudo', 'account-center'],
    options,
    endpoints: adminEndpoints({ impersonationMinutes: minutes }),
    async routes(app) {
      const emails = options.adminEmails?.join(',') ?? app.config.env.ADMIN_EMAILS;
      const granted = await grantAdminEmails(app.db, emails);
      if (granted.length > 0) app.log.info({ admins: granted.length }, 'ADMIN_EMAILS: admin role granted');
    },
    events: { request: markImpersonation },
    extendMe: async (caller) =>
      caller.via === 'session' && caller.impersonator ? { impersonator: caller.impersonator } : {},
  });
}
