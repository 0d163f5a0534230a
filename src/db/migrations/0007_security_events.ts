import { sql } from 'kysely';
import { TIMESTAMP, idColumn } from '../columns.ts';
import type { CitadelMigration } from './types.ts';

/** The foreign key's name (also what 0503 looks for). */
export const SECURITY_EVENTS_USER_FK = 'security_events_user_id_fk';

/**
 * The security event log belongs to the core: sign-in, sign-out and every capability write to it,
 * whichever plugins are present. Databases made by earlier versions already have the table (the
 * account center's 0500 created it): then this does nothing, and 0503 gives it its foreign key.
 * Deleting a user deletes its events; `account_deleted` is stored without a user (user_id null).
 */
export const securityEventsMigration: CitadelMigration = {
  name: '0007_security_events',
  async up(db, dialect) {
    const existing = await db.introspection.getTables();
    if (existing.some((table) => table.name === 'security_events')) return;
    await idColumn(db.schema.createTable('security_events'), dialect)
      .addColumn('user_id', 'integer')
      .addColumn('type', 'varchar(64)', (c) => c.notNull())
      .addColumn('ip', 'varchar(64)')
      .addColumn('user_agent', 'varchar(512)')
      .addColumn('detail', 'text', (c) => c.notNull())
      .addColumn('created_at', TIMESTAMP, (c) => c.notNull())
      .addForeignKeyConstraint(SECURITY_EVENTS_USER_FK, ['user_id'], 'users', ['id'], (c) =>
        c.onDelete('cascade'),
      )
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
  },
  async down(db) {
    await sql`drop table if exists security_events`.execute(db);
  },
};
