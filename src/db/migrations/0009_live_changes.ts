import type { CitadelMigration } from './types.ts';
import { longText, TIMESTAMP } from '../columns.ts';

/**
 * Live resource changes: an outbox row per change of a live resource, written in the change's own
 * transaction (`live_changes`, kept for the retention window), and one sequence row per resource
 * (`live_sequences`) that hands out event ids in commit order: the row is locked from the moment a
 * transaction takes its ids until it commits, so ids grow in commit order without gaps.
 */
export const liveChangesMigration: CitadelMigration = {
  name: '0009_live_changes',
  async up(db, dialect) {
    await db.schema
      .createTable('live_sequences')
      .addColumn('resource', 'varchar(64)', (c) => c.primaryKey())
      .addColumn('last_id', 'integer', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('live_changes')
      .addColumn('resource', 'varchar(64)', (c) => c.notNull())
      .addColumn('id', 'integer', (c) => c.notNull())
      .addColumn('kind', 'varchar(8)', (c) => c.notNull())
      // The row before and after the change (stored values as JSON), for visibility at delivery.
      .addColumn('before_row', longText(dialect))
      .addColumn('after_row', longText(dialect))
      .addColumn('changed_at', TIMESTAMP, (c) => c.notNull())
      .addPrimaryKeyConstraint('live_changes_pk', ['resource', 'id'])
      .execute();
    await db.schema.createIndex('live_changes_changed_at').on('live_changes').column('changed_at').execute();
  },
  async down(db) {
    await db.schema.dropTable('live_changes').execute();
    await db.schema.dropTable('live_sequences').execute();
  },
};
