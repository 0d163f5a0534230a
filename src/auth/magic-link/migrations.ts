import { TIMESTAMP, idColumn, userIdColumn, type CitadelMigration } from '../../plugin-api.ts';

export const magicLinkMigration: CitadelMigration = {
  name: '0100_magic_links',
  async up(db, dialect) {
    await idColumn(db.schema.createTable('magic_link_tokens'), dialect)
      .addColumn('user_id', 'integer', userIdColumn)
      .addColumn('token_hash', 'varchar(64)', (c) => c.notNull().unique())
      .addColumn('expires_at', TIMESTAMP, (c) => c.notNull())
      .addColumn('used_at', TIMESTAMP)
      .addColumn('created_at', TIMESTAMP, (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('magic_link_tokens_user_id')
      .on('magic_link_tokens')
      .column('user_id')
      .execute();
  },
  async down(db) {
    await db.schema.dropTable('magic_link_tokens').execute();
  },
};
