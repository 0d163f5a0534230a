import { type CitadelConfig, type CitadelServices, checkInteger, pluginOptions } from '../../plugin-api.ts';

/** The admin plugin's id. */
export const ADMIN_ID = 'admin';

/** `admin(options)`: every field optional, the defaults below fill the rest. */
export interface AdminOptions {
  /** How long an impersonation lasts at most, in minutes (default 30). */
  impersonationMinutes: number;
  /**
   * Addresses whose account is an admin once it has proved the address (default: `ADMIN_EMAILS`,
   * comma- or space-separated): at start for accounts that have, later when one does. A listed
   * address not proved gives nothing.
   */
  adminEmails?: readonly string[];
}

export const adminDefaults: Readonly<AdminOptions> = { impersonationMinutes: 30 };

/** Given options over the environment (`ADMIN_EMAILS`) over the defaults. */
export function resolveAdminOptions(
  given: Partial<AdminOptions>,
  config: CitadelConfig,
): Required<AdminOptions> {
  return {
    impersonationMinutes: checkInteger(
      'admin',
      'impersonationMinutes',
      given.impersonationMinutes ?? adminDefaults.impersonationMinutes,
      1,
    ),
    adminEmails:
      given.adminEmails ?? (config.env.ADMIN_EMAILS ?? '').split(/[\s,]+/).filter((email) => email !== ''),
  };
}

/** The options the admin plugin runs with. */
export function adminOptions(services: CitadelServices): Required<AdminOptions> {
  return (
    pluginOptions<Required<AdminOptions>>(services, ADMIN_ID) ?? resolveAdminOptions({}, services.config)
  );
}
