import { definePlugin, givenOptions } from '../../plugin-api.ts';
import { accountEndpoints } from './routes.ts';
import { accountsMessages } from './messages/index.ts';
import { ACCOUNTS_ID, accountsDefaults, resolveAccountsOptions, type AccountsOptions } from './options.ts';

/**
 * Home page, registration, password sign-in, sign-out, forgotten and reset passwords
 * (`accounts({ resetTokenTtlSeconds: 1800 })`).
 */
export function accounts(options: Partial<AccountsOptions> = {}) {
  return definePlugin({
    id: ACCOUNTS_ID,
    options: { ...accountsDefaults, ...givenOptions(options) },
    resolveOptions: (config) => resolveAccountsOptions(options, config),
    endpoints: accountEndpoints,
    messages: accountsMessages,
    // A registration that continues with a pipeline action.
    errorCodes: ['register.action_required'],
  });
}
