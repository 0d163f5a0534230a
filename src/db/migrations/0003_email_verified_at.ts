import type { CitadelMigration } from './types.ts';
import { TIMESTAMP } from '../columns.ts';

/**
 * When the account last proved it receives mail at its address (activation, a reset, a magic link,
 * an emailed sign-in code). Social sign-in links only to accounts that have.
 * Existing accounts start unproved: the safe reading of "we never checked".
 */
export const emailVerifiedAtMigration: CitadelMigration = {
  name: '0003_email_verified_at',
  async up(db) {
    await db.schema.alterTable('users').addColumn('email_verified_at', TIMESTAMP).execute();
  },
  async down(db) {
    await db.schema.alterTable('users').dropColumn('email_verified_at').execute();
  },
};
