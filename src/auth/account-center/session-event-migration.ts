import type { CitadelMigration } from '../../db/migrations/types.ts';
import { createCompanionInsert, dropCompanionInsert } from '../../http/sessions/companion-insert.ts';

/**
 * A sign-in's session and its `sign_in` event in one statement on SQLite and MySQL/MariaDB too
 * (PostgreSQL needs nothing: a data-modifying WITH). See http/sessions/companion-insert.ts.
 */
export const sessionEventInsertMigration: CitadelMigration = {
  name: '0501_session_event_insert',
  async up(db, dialect) {
    await createCompanionInsert(db, dialect, 'security_events', [
      'user_id',
      'type',
      'ip',
      'user_agent',
      'detail',
      'created_at',
    ]);
  },
  async down(db, dialect) {
    await dropCompanionInsert(db, dialect, 'security_events');
  },
};
