import type { CitadelMigration } from './types.ts';

/**
 * The organization a personal access token acts in: null for a token made
 * without one. No foreign key: the organizations table belongs to a plugin that may be absent;
 * the tenancy checks membership on every request instead.
 */
export const tokenOrganizationMigration: CitadelMigration = {
  name: '0006_token_organization',
  async up(db) {
    await db.schema.alterTable('personal_access_tokens').addColumn('organization_id', 'integer').execute();
  },
  async down(db) {
    await db.schema.alterTable('personal_access_tokens').dropColumn('organization_id').execute();
  },
};
