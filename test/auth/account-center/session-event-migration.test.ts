import { afterEach, describe, expect, it } from 'vitest';
import { sql, type Kysely } from 'kysely';
import {
  dropSessionEventInsertMigration,
  sessionEventInsertMigration,
} from '../../../src/auth/account-center/session-event-migration.ts';
import { startTestApp, TEST_PASSWORD, type TestApp } from '../../support/app.ts';
import {
  createTestDatabase,
  MYSQL_ADMIN_URL,
  testDialect,
  type TestDatabase,
} from '../../support/databases.ts';
import { eventTypes } from '../../support/security-events.ts';

/**
 * Migration 0501 made a sign-in's session and event one statement with a view and an INSTEAD OF
 * trigger (SQLite) or a trigger and a `pending_session` column (MySQL/MariaDB); 0502 removes them,
 * on databases that have them, that never had them, and when run twice. The session and event are
 * written in one transaction now (events-atomic.test.ts, ops/sign-in-statements.test.ts).
 */
describe("0502: the one-statement session and event write's objects are gone", () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function app(sharedDatabase?: TestDatabase): Promise<TestApp> {
    const t = await startTestApp({ sharedDatabase });
    cleanups.push(() => t.close());
    return t;
  }

  /** What 0501 may have left: trigger and view names, and whether `pending_session` exists. */
  async function leftovers(db: Kysely<unknown>) {
    const dialect = testDialect();
    if (dialect === 'sqlite') {
      const { rows } = await sql<{ name: string }>`
        select name from sqlite_master where name like 'session_with_%'`.execute(db);
      return { objects: rows.map((r) => r.name).sort(), pendingColumn: false };
    }
    if (dialect === 'mysql') {
      const { rows } = await sql<{ name: string }>`
        select trigger_name as name from information_schema.triggers
        where trigger_schema = database() and trigger_name like 'session_with_%'`.execute(db);
      const { rows: columns } = await sql<{ name: string }>`
        select column_name as name from information_schema.columns
        where table_schema = database() and table_name = 'security_events'
          and column_name = 'pending_session'`.execute(db);
      return { objects: rows.map((r) => r.name).sort(), pendingColumn: columns.length > 0 };
    }
    const { rows } = await sql<{ name: string }>`
      select column_name as name from information_schema.columns
      where table_name = 'security_events' and column_name = 'pending_session'`.execute(db);
    return { objects: [], pendingColumn: rows.length > 0 };
  }

  const NONE = { objects: [], pendingColumn: false };

  async function signInRecordsOnce(t: TestApp) {
    const user = await t.createUser();
    const client = t.client();
    expect((await client.post('/login', { email: user.email, password: TEST_PASSWORD })).status).toBe(200);
    expect((await client.get('/me')).body.user.id).toBe(user.id);
    expect(await eventTypes(t, user.id)).toEqual(['sign_in']);
  }

  it('a migrated database has none of them, and signs in with its event', async () => {
    const t = await app();
    const db = t.services.db as Kysely<unknown>;
    expect(await leftovers(db)).toEqual(NONE);
    await signInRecordsOnce(t);
  });

  it('a database that ran 0501 loses them; running 0502 again changes nothing', async () => {
    const t = await app();
    const db = t.services.db as Kysely<unknown>;
    const dialect = t.services.dialect;
    // As a database deployed before 0502 has them.
    await sessionEventInsertMigration.up(db, dialect);
    const before = await leftovers(db);
    if (dialect === 'sqlite')
      expect(before).toEqual({
        objects: ['session_with_security_events', 'session_with_security_events_insert'],
        pendingColumn: false,
      });
    if (dialect === 'mysql')
      expect(before).toEqual({ objects: ['session_with_security_events'], pendingColumn: true });
    await dropSessionEventInsertMigration.up(db, dialect);
    expect(await leftovers(db)).toEqual(NONE);
    await dropSessionEventInsertMigration.up(db, dialect);
    expect(await leftovers(db)).toEqual(NONE);
    // Rolled back, 0502 gives 0501's objects back; 0501's own rollback then removes them.
    await dropSessionEventInsertMigration.down!(db, dialect);
    expect(await leftovers(db)).toEqual(before);
    await sessionEventInsertMigration.down!(db, dialect);
    expect(await leftovers(db)).toEqual(NONE);
    await signInRecordsOnce(t);
  });

  it.skipIf(testDialect() !== 'mysql')(
    'MySQL/MariaDB without the TRIGGER privilege: every migration runs, and sign-ins record their event',
    async () => {
      const database = await createTestDatabase();
      cleanups.push(() => database.drop());
      const name = new URL(database.url).pathname.slice(1);
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
      const url = new URL(database.url);
      url.username = user;
      const t = await app({ ...database, url: url.toString() });
      expect(await leftovers(t.services.db as Kysely<unknown>)).toEqual(NONE);
      await signInRecordsOnce(t);
    },
  );
});
