import { type CitadelConfig, type CitadelServices, checkInteger, pluginOptions } from '../../plugin-api.ts';

/** The accounts plugin's id. */
export const ACCOUNTS_ID = 'accounts';

/**
 * `accounts(options)`: the password-reset link's lifetime and the password sign-in's failure
 * limits. Every field optional.
 */
export interface AccountsOptions {
  /** How long a password-reset link works, in seconds (default 3600). */
  resetTokenTtlSeconds: number;
  /** Failed sign-ins per (identifier, client IP) per window; the next attempt is 429 (default 5). */
  loginFailuresPerIdentifierIp: number;
  /** The window of `loginFailuresPerIdentifierIp`, in seconds (default 60). */
  loginFailureWindowSeconds: number;
  /** Failed sign-ins per account, from any address, per window (default 100). */
  loginFailuresPerAccount: number;
  /** The window of `loginFailuresPerAccount`, in seconds (default 3600). */
  loginAccountWindowSeconds: number;
}

export const accountsDefaults: Readonly<AccountsOptions> = {
  resetTokenTtlSeconds: 60 * 60,
  loginFailuresPerIdentifierIp: 5,
  loginFailureWindowSeconds: 60,
  loginFailuresPerAccount: 100,
  loginAccountWindowSeconds: 60 * 60,
};

/** Given options over the defaults. */
export function resolveAccountsOptions(
  given: Partial<AccountsOptions>,
  _config: CitadelConfig,
): AccountsOptions {
  const pick = (key: keyof AccountsOptions) =>
    checkInteger('accounts', key, given[key] ?? accountsDefaults[key], 1);
  return {
    resetTokenTtlSeconds: pick('resetTokenTtlSeconds'),
    loginFailuresPerIdentifierIp: pick('loginFailuresPerIdentifierIp'),
    loginFailureWindowSeconds: pick('loginFailureWindowSeconds'),
    loginFailuresPerAccount: pick('loginFailuresPerAccount'),
    loginAccountWindowSeconds: pick('loginAccountWindowSeconds'),
  };
}

/** The options the accounts plugin runs with. */
export function accountsOptions(services: CitadelServices): AccountsOptions {
  return pluginOptions<AccountsOptions>(services, ACCOUNTS_ID) ?? accountsDefaults;
}
