import type { CitadelMigration } from './types.ts';

/**
 * The language an account reads Citadel in (a language tag such as `de`), chosen on the account
 * page or with `PATCH /account`. Null until chosen: the request's language applies.
 */
export const userLocaleMigration: CitadelMigration = {
  name: '0008_user_locale',
  async up(db) {
    await db.schema.alterTable('users').addColumn('locale', 'varchar(35)').execute();
  },
  async down(db) {
    await db.schema.alterTable('users').dropColumn('locale').execute();
  },
};
