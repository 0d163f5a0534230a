import { definePlugin } from '../../plugin.ts';
import { accountCenterEndpoints, accountCenterRoutes } from './routes.ts';
import { accountCenterMigration } from './migration.ts';
import { dropSessionEventInsertMigration, sessionEventInsertMigration } from './session-event-migration.ts';
import { securityEventsUserForeignKeyMigration } from './events-user-fk-migration.ts';
import { recoveryCodesAction, twoFactorEnrollAction } from './enroll-action.ts';
import { recordSignIn, signInEventFacts } from './sign-in-events.ts';
import { touchSession } from './sessions.ts';
import './tables.ts';

/**
 * The account center (contract section 10): account page, username and email change, account
 * deletion, sessions and devices, security events and notifications, required two-factor.
 * Registered after `factors`, so `two_factor` is asked before `two_factor_enroll` is considered.
 */
export const accountCenterPlugin = definePlugin({
  name: 'account-center',
  // Its required-enrolment step runs in the pipeline, enrols factors, and deletion needs sudo.
  dependencies: ['pipeline', 'factors', 'sudo'],
  migrations: [
    accountCenterMigration,
    sessionEventInsertMigration,
    dropSessionEventInsertMigration,
    securityEventsUserForeignKeyMigration,
  ],
  endpoints: accountCenterEndpoints,
  // The retention sweep and the pages' script: not endpoints.
  routes: accountCenterRoutes,
  actions: [twoFactorEnrollAction, recoveryCodesAction],
  events: { signedIn: recordSignIn, request: touchSession },
  signInFacts: signInEventFacts,
});
