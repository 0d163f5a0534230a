import { definePlugin } from '../../plugin.ts';
import { givenOptions } from '../core/plugin-options.ts';
import { accountCenterEndpoints, accountCenterRoutes } from './routes.ts';
import { accountCenterMigration } from './migration.ts';
import { dropSessionEventInsertMigration, sessionEventInsertMigration } from './session-event-migration.ts';
import { securityEventsUserForeignKeyMigration } from './events-user-fk-migration.ts';
import { recordSignIn, signInEventFacts } from './sign-in-events.ts';
import { touchSession } from './sessions.ts';
import { voidPendingEmailChanges } from './email-change.ts';
import {
  ACCOUNT_CENTER_ID,
  accountCenterDefaults,
  resolveAccountCenterOptions,
  type AccountCenterOptions,
} from './options.ts';
import './tables.ts';

/**
 * The account center: account page, username and email change, account
 * deletion, sessions and devices, security events and notifications
 * (`accountCenter({ eventRetentionDays: 90 })`). It voids pending email changes when a password
 * is set (`passwordChanged`).
 */
export function accountCenter(options: Partial<AccountCenterOptions> = {}) {
  return definePlugin({
    id: ACCOUNT_CENTER_ID,
    // The account page links the two-factor settings, and deletion needs sudo.
    dependencies: ['factors', 'sudo'],
    options: { ...accountCenterDefaults, ...givenOptions(options) },
    resolveOptions: (config) => resolveAccountCenterOptions(options, config),
    migrations: [
      accountCenterMigration,
      sessionEventInsertMigration,
      dropSessionEventInsertMigration,
      securityEventsUserForeignKeyMigration,
    ],
    tables: ['security_events', 'email_change_tokens'],
    endpoints: accountCenterEndpoints,
    // The retention sweep and the pages' script: not endpoints.
    routes: accountCenterRoutes,
    events: { signedIn: recordSignIn, request: touchSession, passwordChanged: voidPendingEmailChanges },
    signInFacts: signInEventFacts,
  });
}
