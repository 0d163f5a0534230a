import { TIMESTAMP, idColumn, longText, userIdColumn, type CitadelMigration } from '../../plugin-api.ts';

/** Two-factor methods: TOTP secrets, passkeys and recovery codes. */
export const factorsMigration: CitadelMigration = {
  name: '0200_factors',
  async up(db, dialect) {
    await idColumn(db.schema.createTable('totp_factors'), dialect)
      .addColumn('user_id', 'integer', (c) => userIdColumn(c).unique())
      .addColumn('secret_encrypted', 'varchar(255)', (c) => c.notNull())
      .addColumn('last_used_step', 'integer', (c) => c.notNull())
      .addColumn('created_at', TIMESTAMP, (c) => c.notNull())
      .execute();

    await idColumn(db.schema.createTable('passkeys'), dialect)
      .addColumn('user_id', 'integer', userIdColumn)
      .addColumn('credential_id', 'varchar(191)', (c) => c.notNull().unique())
      .addColumn('public_key', longText(dialect), (c) => c.notNull())
      .addColumn('counter', 'bigint', (c) => c.notNull())
      .addColumn('transports', 'varchar(255)', (c) => c.notNull())
      .addColumn('name', 'varchar(100)', (c) => c.notNull())
      .addColumn('created_at', TIMESTAMP, (c) => c.notNull())
      .addColumn('last_used_at', TIMESTAMP)
      .execute();
    await db.schema.createIndex('passkeys_user_id').on('passkeys').column('user_id').execute();

    await idColumn(db.schema.createTable('recovery_codes'), dialect)
      .addColumn('user_id', 'integer', userIdColumn)
      .addColumn('code_hash', 'varchar(64)', (c) => c.notNull())
      .addColumn('used_at', TIMESTAMP)
      .addColumn('created_at', TIMESTAMP, (c) => c.notNull())
      .execute();
    await db.schema.createIndex('recovery_codes_user_id').on('recovery_codes').column('user_id').execute();
  },
  async down(db) {
    await db.schema.dropTable('recovery_codes').execute();
    await db.schema.dropTable('passkeys').execute();
    await db.schema.dropTable('totp_factors').execute();
  },
};
