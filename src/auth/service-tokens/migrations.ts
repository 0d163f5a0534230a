import { TIMESTAMP, longText, type CitadelMigration } from '../../plugin-api.ts';

export const serviceTokenKeysMigration: CitadelMigration = {
  name: '0610_service_token_keys',
  async up(db, dialect) {
    await db.schema
      .createTable('service_token_keys')
      .addColumn('kid', 'varchar(64)', (c) => c.primaryKey())
      .addColumn('public_jwk', longText(dialect), (c) => c.notNull())
      .addColumn('private_key_sealed', longText(dialect), (c) => c.notNull())
      .addColumn('created_at', TIMESTAMP, (c) => c.notNull())
      .addColumn('retired_at', TIMESTAMP)
      .execute();
  },
  async down(db) {
    await db.schema.dropTable('service_token_keys').execute();
  },
};
