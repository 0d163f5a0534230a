import type { CitadelMigration } from './types.ts';
import { TIMESTAMP } from '../columns.ts';

/**
 * A user's role (`user` or `admin`) and the administrator's disabling of an
 * account: `disabled_at` set while it is disabled, `disabled_until` the end of a disabling for a
 * time (null: until enabled). Read with the user row, so a sign-in checks it without a statement.
 */
export const usersRoleDisabledMigration: CitadelMigration = {
  name: '0005_users_role_disabled',
  async up(db) {
    await db.schema
      .alterTable('users')
      .addColumn('role', 'varchar(16)', (c) => c.notNull().defaultTo('user'))
      .execute();
    await db.schema.alterTable('users').addColumn('disabled_at', TIMESTAMP).execute();
    await db.schema.alterTable('users').addColumn('disabled_until', TIMESTAMP).execute();
  },
  async down(db) {
    await db.schema.alterTable('users').dropColumn('disabled_until').execute();
    await db.schema.alterTable('users').dropColumn('disabled_at').execute();
    await db.schema.alterTable('users').dropColumn('role').execute();
  },
};
