import type { CitadelMigration } from '../../db/migrations/types.ts';
import { createCompanionInsert, dropCompanionInsert } from '../../http/sessions/companion-insert.ts';

/** The columns of a `security_events` row that a one-statement insert writes. */
export const SECURITY_EVENT_COLUMNS = [
  'user_id',
  'type',
  'ip',
  'user_agent',
  'detail',
  'created_at',
] as const;

/**
 * A sign-in's session and its `sign_in` event in one statement on SQLite and MySQL/MariaDB too
 * (PostgreSQL needs nothing: a data-modifying WITH). See http/sessions/companion-insert.ts.
 */
export const sessionEventInsertMigration: CitadelMigration = {
  name: '0501_session_event_insert',
  async up(db, dialect) {
    await createCompanionInsert(db, dialect, 'security_events', SECURITY_EVENT_COLUMNS);
  },
  async down(db, dialect) {
    await dropCompanionInsert(db, dialect, 'security_events');
  },
};
