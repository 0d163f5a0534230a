import type { CitadelMigration } from '../../src/db/migrations/types.ts';
import { coreMigrations } from '../../src/db/migrations/index.ts';
import { TIMESTAMP, idColumn, userIdColumn } from '../../src/db/columns.ts';

/**
 * The account center's 0500 as earlier versions ran it: it created `security_events` (without a
 * foreign key) beside `email_change_tokens`. Databases deployed then hold its table; the core's
 * 0007 must leave it as it is.
 */
export const legacyAccountCenterMigration: CitadelMigration = {
  name: '0500_account_center',
  async up(db, dialect) {
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
  },
};

/** The core's migrations before the security event log moved to the core (0007 and 0503 after). */
export const legacyCoreMigrations: CitadelMigration[] = coreMigrations.filter(
  (m) => m.name !== '0007_security_events' && m.name !== '0503_security_events_user_fk',
);
