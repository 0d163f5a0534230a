import { definePlugin, type DeclaredEventTypes } from '../../plugin-api.ts';
import { accountCenterAssets, accountCenterEndpoints } from './routes.ts';
import { accountCenterMigration } from './migration.ts';
import { dropSessionEventInsertMigration, sessionEventInsertMigration } from './session-event-migration.ts';
import { recordSignIn, signInEventFacts } from './sign-in-events.ts';
import { touchSession } from './sessions.ts';
import { voidPendingEmailChanges } from './email-change.ts';
import { ACCOUNT_CENTER_ID, resolveAccountCenterOptions, type AccountCenterOptions } from './options.ts';
import { accountCenterMessages } from './messages/index.ts';
import './tables.ts';

/** The security events the account center records. */
const ACCOUNT_CENTER_EVENTS = [
  { type: 'username_changed', label: 'Username changed' },
  { type: 'email_change_requested', label: 'Email change requested' },
  { type: 'email_changed', label: 'Email changed' },
  { type: 'account_deleted', label: 'Account deleted' },
] as const;

declare module '../../plugin-api.ts' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- declaration merging
  interface PluginSecurityEventTypes extends DeclaredEventTypes<typeof ACCOUNT_CENTER_EVENTS> {}
}

/**
 * The account center: account page, username and email change, account deletion, sessions and
 * devices, the events page, the new-device fact and notice of each sign-in (`accountCenter()`;
 * how long events are kept is the core's `eventRetentionDays`). It voids pending email changes
 * when a password is set (`passwordChanged`).
 */
export function accountCenter(options: AccountCenterOptions = {}) {
  return definePlugin({
    id: ACCOUNT_CENTER_ID,
    // The account page links the two-factor settings, and deletion needs sudo.
    dependencies: ['factors', 'sudo'],
    options: {},
    resolveOptions: () => resolveAccountCenterOptions(options),
    migrations: [accountCenterMigration, sessionEventInsertMigration, dropSessionEventInsertMigration],
    tables: ['email_change_tokens'],
    endpoints: accountCenterEndpoints,
    // The pages' script: not an endpoint.
    assets: accountCenterAssets,
    events: ACCOUNT_CENTER_EVENTS,
    messages: accountCenterMessages,
    hooks: {
      signedIn: recordSignIn,
      request: touchSession,
      passwordChanged: voidPendingEmailChanges,
      signInFacts: signInEventFacts,
    },
  });
}
