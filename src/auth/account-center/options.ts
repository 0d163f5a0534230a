import { ConfigError } from '../../plugin-api.ts';

/** The account center plugin's id. */
export const ACCOUNT_CENTER_ID = 'account-center';

/** `accountCenter(options)`: nothing to set; how long events are kept is the core's setting. */
export interface AccountCenterOptions {
  /**
   * @deprecated Moved to the core (events are kept without the account center too): set
   * `eventRetentionDays` in the server's options, or EVENT_RETENTION_DAYS. Given here, start-up
   * stops with a ConfigError saying so.
   */
  eventRetentionDays?: number;
}

/** The options the account center runs with: none; a moved one stops start-up with one line. */
export function resolveAccountCenterOptions(given: AccountCenterOptions): AccountCenterOptions {
  if (given.eventRetentionDays !== undefined)
    throw new ConfigError(
      `accountCenter: eventRetentionDays is a core setting now: set eventRetentionDays: ${String(given.eventRetentionDays)} in the server's options (or EVENT_RETENTION_DAYS)`,
    );
  return {};
}
