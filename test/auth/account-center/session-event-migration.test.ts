import { afterEach, describe, expect, it } from 'vitest';
import { sql, type Kysely } from 'kysely';
import { openDatabase, type OpenDatabase } from '../../../src/db/open.ts';
import { migrateToLatest } from '../../../src/db/migrate.ts';
import { citadelMigrations } from '../../../src/app/assembly.ts';
import { defaultPlugins } from '../../../src/auth/index.ts';
import type { Dialect } from '../../../src/db/url.ts';
import { startTestApp, TEST_PASSWORD, type TestApp } from '../../support/app.ts';
import {
  createTestDatabase,
  MYSQL_ADMIN_URL,
  testDialect,
  type TestDatabase,
} from '../../support/databases.ts';
import { eventTypes } from '../../support/security-events.ts';

const OBJECT = 'session_with_security_events';
const SESSION_COLUMNS = ['id', 'user_id', 'data', 'expires_at', 'updated_at'] as const;
const EVENT_COLUMNS = ['user_id', 'type', 'ip', 'user_agent', 'detail', 'created_at'] as const;

/**
 * What 0501 of an earlier build created, as it created it: a sign-in's session and its event in one
 * statement, through a view with an INSTEAD OF trigger (SQLite) or a BEFORE INSERT trigger on
 * `security_events` reading a `pending_session` column (MySQL/MariaDB); nothing on PostgreSQL.
 */
async function earlier0501(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  if (dialect === 'sqlite') {
    const viewColumns = [...SESSION_COLUMNS, 'replaces', ...EVENT_COLUMNS.map((c) => `c_${c}`)];
    await sql
      .raw(`CREATE VIEW "${OBJECT}" AS SELECT ${viewColumns.map((c) => `NULL AS "${c}"`).join(', ')} WHERE 0`)
      .execute(db);
    await sql
      .raw(
        `CREATE TRIGGER "${OBJECT}_insert" INSTEAD OF INSERT ON "${OBJECT}" BEGIN
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
}

/** Tables, columns, indexes, views and triggers, in a form two databases can be compared by. */
async function schemaOf(db: Kysely<unknown>, dialect: Dialect): Promise<string[]> {
  if (dialect === 'sqlite') {
    const { rows } = await sql<{ type: string; name: string; sql: string | null }>`
      select type, name, sql from sqlite_master where name not like 'sqlite_%' order by type, name`.execute(
      db,
    );
    return rows.map((r) => `${r.type} ${r.name}: ${r.sql ?? ''}`);
  }
  if (dialect === 'mysql') {
    const { rows: columns } = await sql<Record<string, unknown>>`
      select table_name, column_name, column_type, is_nullable, column_default, ordinal_position
      from information_schema.columns where table_schema = database()
      order by table_name, ordinal_position`.execute(db);
    const { rows: indexes } = await sql<Record<string, unknown>>`
      select table_name, index_name, column_name, seq_in_index, non_unique
      from information_schema.statistics where table_schema = database()
      order by table_name, index_name, seq_in_index`.execute(db);
    const { rows: triggers } = await sql<Record<string, unknown>>`
      select trigger_name from information_schema.triggers where trigger_schema = database()
      order by trigger_name`.execute(db);
    const { rows: views } = await sql<Record<string, unknown>>`
      select table_name from information_schema.views where table_schema = database()
      order by table_name`.execute(db);
    return [...columns, ...indexes, ...triggers, ...views].map((r) => JSON.stringify(Object.values(r)));
  }
  const { rows: columns } = await sql<Record<string, unknown>>`
    select table_name, column_name, data_type, is_nullable, column_default, ordinal_position
    from information_schema.columns where table_schema = current_schema()
    order by table_name, ordinal_position`.execute(db);
  const { rows: indexes } = await sql<Record<string, unknown>>`
    select tablename, indexname, indexdef from pg_indexes where schemaname = current_schema()
    order by tablename, indexname`.execute(db);
  const { rows: triggers } = await sql<Record<string, unknown>>`
    select trigger_name, event_object_table from information_schema.triggers
    where trigger_schema = current_schema() order by trigger_name`.execute(db);
  return [...columns, ...indexes, ...triggers].map((r) => JSON.stringify(Object.values(r)));
}

/**
 * A sign-in's session and its event are one transaction. A new database never gets the objects an
 * earlier build's 0501 created for a one-statement write; a database that has them (0501 ran, 0502
 * not yet) migrates to the same schema as a new one, and signs in with its event.
 */
describe('0501/0502: the one-statement session and event write', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function database(): Promise<{ database: TestDatabase; open: OpenDatabase }> {
    const database = await createTestDatabase();
    cleanups.push(() => database.drop());
    const open = await openDatabase(database.url);
    cleanups.push(() => open.close());
    return { database, open };
  }

  async function app(sharedDatabase: TestDatabase): Promise<TestApp> {
    const t = await startTestApp({ sharedDatabase });
    cleanups.push(() => t.close());
    return t;
  }

  async function signInRecordsOnce(t: TestApp) {
    const user = await t.createUser();
    const client = t.client();
    expect((await client.post('/login', { email: user.email, password: TEST_PASSWORD })).status).toBe(200);
    expect((await client.get('/me')).body.user.id).toBe(user.id);
    expect(await eventTypes(t, user.id)).toEqual(['sign_in']);
  }

  const migrations = () => citadelMigrations(defaultPlugins());

  it('a new database gets none of them, and 0501 creates nothing', async () => {
    const { open } = await database();
    const empty = await schemaOf(open.db as Kysely<unknown>, open.dialect);
    const upTo0500 = migrations().filter((m) => m.name < '0501');
    await migrateToLatest(open.db, open.dialect, upTo0500);
    const before = await schemaOf(open.db as Kysely<unknown>, open.dialect);
    expect(before).not.toEqual(empty);
    const report = await migrateToLatest(
      open.db,
      open.dialect,
      migrations().filter((m) => m.name <= '0501_session_event_insert'),
    );
    expect(report.applied).toEqual(['0501_session_event_insert']);
    expect(await schemaOf(open.db as Kysely<unknown>, open.dialect)).toEqual(before);
    await migrateToLatest(open.db, open.dialect, migrations());
    expect((await schemaOf(open.db as Kysely<unknown>, open.dialect)).join('\n')).not.toContain(OBJECT);
    expect((await schemaOf(open.db as Kysely<unknown>, open.dialect)).join('\n')).not.toContain(
      'pending_session',
    );
  });

  it("a database an earlier build's 0501 ran on migrates to a new database's schema", async () => {
    const fresh = await database();
    await migrateToLatest(fresh.open.db, fresh.open.dialect, migrations());
    const expected = await schemaOf(fresh.open.db as Kysely<unknown>, fresh.open.dialect);

    const earlier = await database();
    const { db, dialect } = earlier.open;
    await migrateToLatest(
      db,
      dialect,
      migrations().filter((m) => m.name <= '0501_session_event_insert'),
    );
    await earlier0501(db as Kysely<unknown>, dialect);
    const left = (await schemaOf(db as Kysely<unknown>, dialect)).join('\n');
    if (dialect === 'sqlite') expect(left).toContain(`trigger ${OBJECT}_insert`);
    if (dialect === 'mysql') expect(left).toContain('pending_session');

    const report = await migrateToLatest(db, dialect, migrations());
    expect(report.applied).toContain('0502_drop_session_event_insert');
    expect(await schemaOf(db as Kysely<unknown>, dialect)).toEqual(expected);
    // Run again (a second process starting): nothing to do, nothing changes.
    expect((await migrateToLatest(db, dialect, migrations())).applied).toEqual([]);
    await earlier.open.close();
    await signInRecordsOnce(await app(earlier.database));
  });

  it.skipIf(testDialect() !== 'mysql')(
    'MySQL/MariaDB without the TRIGGER privilege: every migration runs, and sign-ins record their event',
    async () => {
      const created = await createTestDatabase();
      cleanups.push(() => created.drop());
      const name = new URL(created.url).pathname.slice(1);
      const user = `nt_${name}`.slice(0, 32);
      const mysql = await import('mysql2/promise');
      const admin = await mysql.createConnection({ uri: MYSQL_ADMIN_URL });
      await admin.query(`CREATE USER '${user}'@'%'`);
      await admin.query(`GRANT ALL PRIVILEGES ON ${name}.* TO '${user}'@'%'`);
      await admin.query(`REVOKE TRIGGER ON ${name}.* FROM '${user}'@'%'`);
      cleanups.push(async () => {
        await admin.query(`DROP USER '${user}'@'%'`);
        await admin.end();
      });
      const url = new URL(created.url);
      url.username = user;
      const t = await app({ ...created, url: url.toString() });
      expect((await schemaOf(t.services.db as Kysely<unknown>, 'mysql')).join('\n')).not.toContain(
        'pending_session',
      );
      await signInRecordsOnce(t);
    },
  );
});
