import { definePlugin } from '../../plugin.ts';
import { accountCenterEndpoints, accountCenterRoutes } from './routes.ts';
import { accountCenterMigration } from './migration.ts';
import { dropSessionEventInsertMigration, sessionEventInsertMigration } from './session-event-migration.ts';
import { securityEventsUserForeignKeyMigration } from './events-user-fk-migration.ts';
import { recordSignIn, signInEventFacts } from './sign-in-events.ts';
import { touchSession } from './sessions.ts';
import { voidPendingEmailChanges } from './email-change.ts';
import './tables.ts';

/**
 * The account center (contract section 10): account page, username and email change, account
 * deletion, sessions and devices, security events and notifications. It voids pending email
 * changes when a password is set (`passwordChanged`).
 */
export const accountCenterPlugin = definePlugin({
  name: 'account-center',
  // The account page links the two-factor settings, and deletion needs sudo.
  dependencies: ['factors', 'sudo'],
  migrations: [
    accountCenterMigration,
    sessionEventInsertMigration,
    dropSessionEventInsertMigration,
    securityEventsUserForeignKeyMigration,
  ],
  endpoints: accountCenterEndpoints,
  // The retention sweep and the pages' script: not endpoints.
  routes: accountCenterRoutes,
  events: { signedIn: recordSignIn, request: touchSession, passwordChanged: voidPendingEmailChanges },
  signInFacts: signInEventFacts,
});
