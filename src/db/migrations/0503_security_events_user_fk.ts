import { sql, type Kysely } from 'kysely';
import type { CitadelMigration } from './types.ts';
import type { Dialect } from '../url.ts';
import { SECURITY_EVENTS_USER_FK as FK } from './0007_security_events.ts';

/**
 * A request racing an account deletion leaves no row of the deleted user, events
 * included (only `account_deleted` stays, without the user: its user_id is null, which a foreign key
 * allows). 0500 gave `security_events.user_id` no foreign key, so an event written for a user in
 * the moment of the deletion stayed behind. Now the user's events go with the user (cascade), and
 * an event written for a user that is gone fails, which the request answers with 401 (the caller
 * is gone). Events of users deleted before this migration, left by such races, are removed first.
 * The name is the account center's, which brought it; the core runs it now, and it does nothing
 * where the key is there already (a table 0007 created).
 */
export const securityEventsUserForeignKeyMigration: CitadelMigration = {
  name: '0503_security_events_user_fk',
  async up(db, dialect) {
    if (dialect !== 'sqlite' && (await hasForeignKey(db, dialect))) return;
    const orphans = sql`user_id is not null and user_id not in (select id from users)`;
    if (dialect !== 'sqlite') {
      await sql`delete from security_events where ${orphans}`.execute(db);
      await sql
        .raw(
          `alter table security_events add constraint ${FK} foreign key (user_id) references users (id) on delete cascade`,
        )
        .execute(db);
      return;
    }
    await rebuildWithForeignKey(db);
  },
  async down(db, dialect) {
    if (dialect === 'postgres')
      await sql.raw(`alter table security_events drop constraint ${FK}`).execute(db);
    else if (dialect === 'mysql')
      await sql.raw(`alter table security_events drop foreign key ${FK}`).execute(db);
    // SQLite keeps the constraint: dropping it would take a rebuild, and no earlier code relies on its absence.
  },
};

/** Whether `security_events` has its foreign key already (PostgreSQL, MySQL/MariaDB). */
async function hasForeignKey(db: Kysely<unknown>, dialect: Dialect): Promise<boolean> {
  const { rows } =
    dialect === 'postgres'
      ? await sql`select 1 from pg_constraint
          where conname = ${FK} and conrelid = to_regclass('security_events')`.execute(db)
      : await sql`
          select 1 from information_schema.table_constraints
          where constraint_schema = database() and table_name = 'security_events'
            and constraint_name = ${FK}`.execute(db);
  return rows.length > 0;
}

/**
 * SQLite cannot add a constraint to a table: the documented way is a new table, a copy, and a
 * rename (https://sqlite.org/lang_altertable.html#otheralter). The new table is the old one's own
 * CREATE statement with the reference added to `user_id`, so columns other migrations may have
 * added come along; its indexes are created again from their stored statements.
 */
async function rebuildWithForeignKey(db: Kysely<unknown>): Promise<void> {
  const { rows: tables } = await sql<{ sql: string }>`
    select sql from sqlite_master where type = 'table' and name = 'security_events'`.execute(db);
  const create = tables[0]?.sql;
  if (!create) throw new Error('security_events: no such table');
  if (/references\s+"?users"?/i.test(create)) return;
  const userColumn = /("user_id"|\buser_id\b)\s+integer/i;
  if (!userColumn.test(create)) throw new Error('security_events: user_id column not found');
  const rebuilt = create
    .replace(/^create table\s+("security_events"|security_events)/i, 'CREATE TABLE "security_events_0503"')
    .replace(userColumn, (column) => `${column} references "users" ("id") on delete cascade`);
  const { rows: indexes } = await sql<{ sql: string }>`
    select sql from sqlite_master
    where type = 'index' and tbl_name = 'security_events' and sql is not null`.execute(db);
  await sql.raw(rebuilt).execute(db);
  await sql`
    insert into security_events_0503 select * from security_events
    where user_id is null or user_id in (select id from users)`.execute(db);
  await sql`drop table security_events`.execute(db);
  await sql`alter table security_events_0503 rename to security_events`.execute(db);
  for (const index of indexes) await sql.raw(index.sql).execute(db);
}
