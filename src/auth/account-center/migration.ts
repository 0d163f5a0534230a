import { sql } from 'kysely';
import { TIMESTAMP, idColumn, mysqlExactText, userIdColumn } from '../../db/columns.ts';
import type { CitadelMigration } from '../../db/migrations/types.ts';

export const accountCenterMigration: CitadelMigration = {
  name: '0500_account_center',
  async up(db, dialect) {
    // No foreign key on user_id: an account's deletion keeps its `account_deleted` row (user_id null).
    await idColumn(db.schema.createTable('security_events'), dialect)
      .addColumn('user_id', 'integer')
      .addColumn('type', 'varchar(64)', (c) => c.notNull())
      .addColumn('ip', 'varchar(64)')
      .addColumn('user_agent', 'varchar(512)')
      .addColumn('detail', 'text', (c) => c.notNull())
      .addColumn('created_at', TIMESTAMP, (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('security_events_user_created')
      .on('security_events')
      .columns(['user_id', 'created_at'])
      .execute();
    await db.schema
      .createIndex('security_events_created_at')
      .on('security_events')
      .column('created_at')
      .execute();

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
    await db.schema.dropTable('security_events').execute();
  },
};
