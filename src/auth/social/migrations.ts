import { TIMESTAMP, idColumn, userIdColumn, type CitadelMigration } from '../../plugin-api.ts';

/** Social sign-in identities. */
export const socialMigration: CitadelMigration = {
  name: '0300_social',
  async up(db, dialect) {
    // Each indexed column stays within MySQL's 191-character (767-byte utf8mb4) per-column limit.
    await idColumn(db.schema.createTable('oauth_identities'), dialect)
      .addColumn('provider', 'varchar(64)', (c) => c.notNull())
      .addColumn('subject', 'varchar(191)', (c) => c.notNull())
      .addColumn('email', 'varchar(191)')
      .addColumn('user_id', 'integer', userIdColumn)
      .addColumn('created_at', TIMESTAMP, (c) => c.notNull())
      .addColumn('updated_at', TIMESTAMP, (c) => c.notNull())
      .addUniqueConstraint('oauth_identities_provider_subject', ['provider', 'subject'])
      .execute();
    await db.schema
      .createIndex('oauth_identities_user_id')
      .on('oauth_identities')
      .column('user_id')
      .execute();
  },
  async down(db) {
    await db.schema.dropTable('oauth_identities').execute();
  },
};
