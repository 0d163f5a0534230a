import { sql } from 'kysely';
import {
  TIMESTAMP,
  idColumn,
  mysqlExactText,
  userIdColumn,
  type CitadelMigration,
} from '../../plugin-api.ts';

export const accountCenterMigration: CitadelMigration = {
  name: '0500_account_center',
  async up(db, dialect) {
    // The security event log was created here too; the core owns it now (0007_security_events,
    // which runs first and leaves an existing table as it is).
    await idColumn(db.schema.createTable('email_change_tokens'), dialect)
      .addColumn('user_id', 'integer', userIdColumn)
      .addColumn('new_email', 'varchar(191)', (c) => c.notNull())
      .addColumn('token_hash', 'varchar(64)', (c) => c.notNull().unique())
      .addColumn('expires_at', TIMESTAMP, (c) => c.notNull())
      .addColumn('used_at', TIMESTAMP)
      .addColumn('created_at', TIMESTAMP, (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('email_change_tokens_user_id')
      .on('email_change_tokens')
      .column('user_id')
      .execute();
    if (dialect === 'mysql') {
      // Token hashes are matched byte for byte (see 0900_exact_feature_keys).
      await sql`ALTER TABLE email_change_tokens MODIFY token_hash ${mysqlExactText('varchar(64)')}`.execute(
        db,
      );
    }
  },
  async down(db) {
    await db.schema.dropTable('email_change_tokens').execute();
  },
};
