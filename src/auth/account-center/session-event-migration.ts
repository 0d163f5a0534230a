import { sql, type Kysely } from 'kysely';
import type { CitadelMigration } from '../../db/migrations/types.ts';
import type { Dialect } from '../../db/url.ts';

/*
 * History. Migration 0501 made a sign-in's session and its `sign_in` event one statement on
 * SQLite (a view with an INSTEAD OF trigger) and MySQL/MariaDB (a BEFORE INSERT trigger on
 * `security_events` that wrote the session carried as JSON in a `pending_session` column).
 * Migration 0502 removes them again: the pair is now written in one transaction (PostgreSQL keeps
 * its data-modifying WITH, which needs no object), a few microseconds on SQLite, and a database
 * without the TRIGGER grant no longer takes another path. 0501 stays as it was, since deployed
 * databases have run it; its code is kept here, frozen, for new databases and for 0502's `down`.
 */

/** The objects' name (0501). */
const OBJECT = 'session_with_security_events';
/** SQLite's INSTEAD OF trigger on the view (0501). */
const SQLITE_TRIGGER = `${OBJECT}_insert`;
const SESSION_COLUMNS = ['id', 'user_id', 'data', 'expires_at', 'updated_at'] as const;
const EVENT_COLUMNS = ['user_id', 'type', 'ip', 'user_agent', 'detail', 'created_at'] as const;
/** MySQL errors meaning "not allowed to create a trigger here" (binary log without SUPER, no TRIGGER grant). */
const MYSQL_REFUSALS = new Set([1142, 1227, 1419]);

/** 0501's `up`, unchanged in what it creates. */
async function createSessionEventObjects(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  if (dialect === 'sqlite') {
    const viewColumns = [...SESSION_COLUMNS, 'replaces', ...EVENT_COLUMNS.map((c) => `c_${c}`)];
    await sql
      .raw(`CREATE VIEW "${OBJECT}" AS SELECT ${viewColumns.map((c) => `NULL AS "${c}"`).join(', ')} WHERE 0`)
      .execute(db);
    await sql
      .raw(
        `CREATE TRIGGER "${SQLITE_TRIGGER}" INSTEAD OF INSERT ON "${OBJECT}" BEGIN
          DELETE FROM "sessions" WHERE "id" = NEW."replaces";
          INSERT INTO "security_events" (${EVENT_COLUMNS.map((c) => `"${c}"`).join(', ')})
            VALUES (${EVENT_COLUMNS.map((c) => `NEW."c_${c}"`).join(', ')});
          INSERT INTO "sessions" (${SESSION_COLUMNS.map((c) => `"${c}"`).join(', ')})
            VALUES (${SESSION_COLUMNS.map((c) => `NEW."${c}"`).join(', ')});
        END`,
      )
      .execute(db);
    return;
  }
  if (dialect !== 'mysql') return;
  const field = (key: string) => `JSON_UNQUOTE(JSON_EXTRACT(NEW.pending_session, '$.${key}'))`;
  await sql.raw('ALTER TABLE `security_events` ADD COLUMN pending_session MEDIUMTEXT NULL').execute(db);
  try {
    await sql
      .raw(
        `CREATE TRIGGER \`${OBJECT}\` BEFORE INSERT ON \`security_events\` FOR EACH ROW
        BEGIN
          IF NEW.pending_session IS NOT NULL THEN
            DELETE FROM sessions WHERE id = ${field('replaces')};
            INSERT INTO sessions (${SESSION_COLUMNS.join(', ')})
              VALUES (${SESSION_COLUMNS.map(field).join(', ')});
            SET NEW.pending_session = NULL;
          END IF;
        END`,
      )
      .execute(db);
  } catch (error) {
    if (!MYSQL_REFUSALS.has((error as { errno?: number }).errno ?? 0)) throw error;
    await sql.raw('ALTER TABLE `security_events` DROP COLUMN pending_session').execute(db);
  }
}

/**
 * Remove whatever 0501 left, and only that: each object is looked up first, so the drop is safe on
 * a database where 0501 created nothing (PostgreSQL; MySQL/MariaDB that refused the trigger) and
 * when run again. On MySQL/MariaDB the trigger goes before the column it reads; if the trigger
 * cannot be dropped (no TRIGGER grant), the migration fails before it changes anything.
 */
export async function dropSessionEventObjects(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  if (dialect === 'sqlite') {
    // Dropping the view drops its INSTEAD OF trigger; both named, both IF EXISTS.
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

/** Superseded by 0502 (above); kept because deployed databases have run it. */
export const sessionEventInsertMigration: CitadelMigration = {
  name: '0501_session_event_insert',
  async up(db, dialect) {
    await createSessionEventObjects(db, dialect);
  },
  async down(db, dialect) {
    await dropSessionEventObjects(db, dialect);
  },
};

/**
 * The session and its event are written in one transaction (http/sessions/plugin.ts): the
 * trigger, the view and the `pending_session` column of 0501 go. Rolled back, 0501's objects come
 * back as they were.
 */
export const dropSessionEventInsertMigration: CitadelMigration = {
  name: '0502_drop_session_event_insert',
  async up(db, dialect) {
    await dropSessionEventObjects(db, dialect);
  },
  async down(db, dialect) {
    await createSessionEventObjects(db, dialect);
  },
};
