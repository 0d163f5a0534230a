import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../../db/url.ts';

/**
 * A new session and one companion row (a sign-in's `sign_in` event) in ONE atomic statement where
 * the dialect has no data-modifying WITH (PostgreSQL has one: store.ts). Without it the pair costs
 * BEGIN, two INSERTs and COMMIT.
 *
 * - SQLite: a view `session_with_<table>` whose INSTEAD OF INSERT trigger removes the replaced
 *   session, inserts the companion row and the session. A statement and its triggers commit or
 *   fail together.
 * - MySQL/MariaDB (no INSTEAD OF, and a trigger may not write its own table): a BEFORE INSERT
 *   trigger `session_with_<table>` on the companion table. The companion is inserted with the
 *   session as JSON in a `pending_session` column; the trigger writes the session (and removes the
 *   replaced one) and empties the column. InnoDB undoes the trigger's writes with the statement's.
 *
 * The plugin that owns the companion table creates the objects in a migration
 * (`createCompanionInsert`); the store finds them at start (`findCompanionInserts`) and falls back
 * to the transaction for tables without one.
 */

/** The session columns, in the order the objects take them. */
const SESSION_COLUMNS = ['id', 'user_id', 'data', 'expires_at', 'updated_at'] as const;

/** A new session row as the store writes it. */
export type SessionRow = Record<(typeof SESSION_COLUMNS)[number], unknown>;

const objectName = (table: string) => `session_with_${table}`;

/** Identifiers here come from migrations (table and column names), never from a request. */
function identifier(dialect: Dialect, name: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`companion insert: unexpected name "${name}"`);
  return dialect === 'mysql' ? `\`${name}\`` : `"${name}"`;
}

/** MySQL errors meaning "not allowed to create a trigger here" (binary log without SUPER, no TRIGGER grant). */
const MYSQL_REFUSALS = new Set([1142, 1227, 1419]);

/**
 * For a migration: create what writes a new session with one row of `table` (its insertable
 * `columns`) in one statement. PostgreSQL needs nothing. Answers false when MySQL/MariaDB refused
 * to create the trigger (with binary logging on, creating a trigger takes SUPER unless
 * `log_bin_trust_function_creators` is set): sign-ins then use a transaction, as before.
 */
export async function createCompanionInsert<DB>(
  db: Kysely<DB>,
  dialect: Dialect,
  table: string,
  columns: readonly string[],
): Promise<boolean> {
  const q = (name: string) => identifier(dialect, name);
  const name = objectName(table);
  if (dialect === 'sqlite') {
    const viewColumns = [...SESSION_COLUMNS, 'replaces', ...columns.map((c) => `c_${c}`)];
    await sql
      .raw(`CREATE VIEW ${q(name)} AS SELECT ${viewColumns.map((c) => `NULL AS ${q(c)}`).join(', ')} WHERE 0`)
      .execute(db);
    await sql
      .raw(
        `CREATE TRIGGER ${q(`${name}_insert`)} INSTEAD OF INSERT ON ${q(name)} BEGIN
          DELETE FROM "sessions" WHERE "id" = NEW."replaces";
          INSERT INTO ${q(table)} (${columns.map(q).join(', ')})
            VALUES (${columns.map((c) => `NEW.${q(`c_${c}`)}`).join(', ')});
          INSERT INTO "sessions" (${SESSION_COLUMNS.map(q).join(', ')})
            VALUES (${SESSION_COLUMNS.map((c) => `NEW.${q(c)}`).join(', ')});
        END`,
      )
      .execute(db);
    return true;
  }
  if (dialect !== 'mysql') return true;
  const field = (key: string) => `JSON_UNQUOTE(JSON_EXTRACT(NEW.pending_session, '$.${key}'))`;
  await sql.raw(`ALTER TABLE ${q(table)} ADD COLUMN pending_session MEDIUMTEXT NULL`).execute(db);
  try {
    await sql
      .raw(
        `CREATE TRIGGER ${q(name)} BEFORE INSERT ON ${q(table)} FOR EACH ROW
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
    return true;
  } catch (error) {
    if (!MYSQL_REFUSALS.has((error as { errno?: number }).errno ?? 0)) throw error;
    await sql.raw(`ALTER TABLE ${q(table)} DROP COLUMN pending_session`).execute(db);
    return false;
  }
}

/** For a migration's `down`: remove what `createCompanionInsert` made. */
export async function dropCompanionInsert<DB>(db: Kysely<DB>, dialect: Dialect, table: string) {
  const q = (name: string) => identifier(dialect, name);
  if (dialect === 'sqlite') await sql.raw(`DROP VIEW IF EXISTS ${q(objectName(table))}`).execute(db);
  if (dialect !== 'mysql') return;
  await sql.raw(`DROP TRIGGER IF EXISTS ${q(objectName(table))}`).execute(db);
  await sql.raw(`ALTER TABLE ${q(table)} DROP COLUMN pending_session`).execute(db);
}

/** The companion tables that have a one-statement insert on this database (asked once, at start). */
export async function findCompanionInserts<DB>(db: Kysely<DB>, dialect: Dialect): Promise<Set<string>> {
  let names: string[] = [];
  if (dialect === 'sqlite') {
    const { rows } = await sql<{ name: string }>`
      select name from sqlite_master where type = 'view' and name like 'session\\_with\\_%' escape '\\'`.execute(
      db,
    );
    names = rows.map((row) => row.name);
  } else if (dialect === 'mysql') {
    const { rows } = await sql<{ name: string }>`
      select trigger_name as name from information_schema.triggers
      where trigger_schema = database() and trigger_name like 'session\\_with\\_%'`.execute(db);
    names = rows.map((row) => row.name);
  }
  return new Set(names.map((name) => name.slice('session_with_'.length)));
}

/**
 * Write a new session, the removal of the one it replaces, and one row of `table`, in one
 * statement through the objects above (only for a table `findCompanionInserts` found).
 */
export async function insertSessionWithCompanion<DB>(
  db: Kysely<DB>,
  dialect: Dialect,
  session: SessionRow,
  replaces: string | null,
  table: string,
  values: Record<string, unknown>,
): Promise<void> {
  if (dialect === 'sqlite') {
    const row: Record<string, unknown> = { ...session, replaces };
    for (const [column, value] of Object.entries(values)) row[`c_${column}`] = value;
    await db
      .insertInto(objectName(table) as never)
      .values(row as never)
      .execute();
    return;
  }
  // JSON_EXTRACT of an absent key is SQL NULL; of a JSON null it would be the string 'null'.
  const pending: Record<string, unknown> = {};
  for (const [column, value] of Object.entries({ ...session, replaces }))
    if (value !== null && value !== undefined) pending[column] = value;
  await db
    .insertInto(table as never)
    .values({ ...values, pending_session: JSON.stringify(pending) } as never)
    .execute();
}
