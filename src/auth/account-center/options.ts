import {
  type CitadelConfig,
  type CitadelServices,
  checkInteger,
  envInteger,
  pluginOptions,
} from '../../plugin-api.ts';

/** The account center plugin's id. */
export const ACCOUNT_CENTER_ID = 'account-center';

/** `accountCenter(options)`: every field optional, the default below fills the rest. */
export interface AccountCenterOptions {
  /**
   * Security events older than this many days are deleted, at start and every 6 hours
   * (default 180; EVENT_RETENTION_DAYS).
   */
  eventRetentionDays: number;
}

export const accountCenterDefaults: Readonly<AccountCenterOptions> = { eventRetentionDays: 180 };

/** Given options, then EVENT_RETENTION_DAYS, then the default. */
export function resolveAccountCenterOptions(
  given: Partial<AccountCenterOptions>,
  config: CitadelConfig,
): AccountCenterOptions {
  const days =
    given.eventRetentionDays ??
    envInteger(config.env, 'EVENT_RETENTION_DAYS', 1) ??
    accountCenterDefaults.eventRetentionDays;
  return { eventRetentionDays: checkInteger('accountCenter', 'eventRetentionDays', days, 1) };
}

/** The options the account center runs with. */
export function accountCenterOptions(services: CitadelServices): AccountCenterOptions {
  return pluginOptions<AccountCenterOptions>(services, ACCOUNT_CENTER_ID) ?? accountCenterDefaults;
}
