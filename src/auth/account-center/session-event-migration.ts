import { sql, type Kysely } from 'kysely';
import type { CitadelMigration, Dialect } from '../../plugin-api.ts';

/*
 * A sign-in's session and its `sign_in` event are written in one transaction
 * (http/sessions/plugin.ts). A database made by an earlier build may hold objects for writing them
 * in one statement: on SQLite a view `session_with_security_events` with an INSTEAD OF trigger, on
 * MySQL/MariaDB a BEFORE INSERT trigger on `security_events` and its `pending_session` column. 0502
 * removes them where they exist; a new database never gets them.
 */

const OBJECT = 'session_with_security_events';
const SQLITE_TRIGGER = `${OBJECT}_insert`;

/**
 * Remove the one-statement write's objects, and only those: each is looked up first, so this runs
 * on a database that never had them and when run again. On MySQL/MariaDB the trigger goes before
 * the column it reads; if the trigger cannot be dropped (no TRIGGER grant), the migration fails
 * before it changes anything.
 */
export async function dropSessionEventObjects(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  if (dialect === 'sqlite') {
    await sql.raw(`DROP TRIGGER IF EXISTS "${SQLITE_TRIGGER}"`).execute(db);
    await sql.raw(`DROP VIEW IF EXISTS "${OBJECT}"`).execute(db);
    return;
  }
  if (dialect !== 'mysql') return;
  const { rows: triggers } = await sql<{ name: string }>`
    select trigger_name as name from information_schema.triggers
    where trigger_schema = database() and trigger_name = ${OBJECT}`.execute(db);
  if (triggers.length > 0) await sql.raw(`DROP TRIGGER \`${OBJECT}\``).execute(db);
  const { rows: columns } = await sql<{ name: string }>`
    select column_name as name from information_schema.columns
    where table_schema = database() and table_name = 'security_events' and column_name = 'pending_session'`.execute(
    db,
  );
  if (columns.length > 0)
    await sql.raw('ALTER TABLE `security_events` DROP COLUMN pending_session').execute(db);
}

/**
 * Creates nothing. Its name stays because databases made by earlier builds recorded it (the
 * migrator refuses a database that ran a migration it does not know); 0502 removes what it left.
 */
export const sessionEventInsertMigration: CitadelMigration = {
  name: '0501_session_event_insert',
  async up() {},
};

/** Removes the objects an earlier build's 0501 may have left (above). */
export const dropSessionEventInsertMigration: CitadelMigration = {
  name: '0502_drop_session_event_insert',
  async up(db, dialect) {
    await dropSessionEventObjects(db, dialect);
  },
};
