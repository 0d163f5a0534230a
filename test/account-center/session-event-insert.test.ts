import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/open.ts';
import {
  createCompanionInsert,
  dropCompanionInsert,
  findCompanionInserts,
} from '../../src/http/sessions/companion-insert.ts';
import { startTestApp, TEST_PASSWORD, type TestApp } from '../helpers/app.ts';
import { createTestDatabase, MYSQL_ADMIN_URL, testDialect, type TestDatabase } from '../helpers/databases.ts';
import { eventTypes } from './helpers.ts';
import { SECURITY_EVENT_COLUMNS } from '../../src/auth/account-center/session-event-migration.ts';

/**
 * The one-statement write of a new session and its `sign_in` event (http/sessions/companion-insert.ts)
 * is an optimisation: without its database objects a sign-in must still commit both, through a
 * transaction. The objects' atomicity is in events-atomic.test.ts; the statement count in
 * ops/sign-in-statements.test.ts.
 */
describe('the one-statement session and event write', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function app(
    options: { sharedDatabase?: TestDatabase; statements?: string[] } = {},
  ): Promise<TestApp> {
    const t = await startTestApp({
      sharedDatabase: options.sharedDatabase,
      database: { onQuery: (sql) => options.statements?.push(sql) },
    });
    cleanups.push(() => t.close());
    return t;
  }

  it('is found at start where the dialect needs it (PostgreSQL has a data-modifying WITH instead)', async () => {
    const t = await app();
    const found = await findCompanionInserts(t.services.db, t.services.dialect);
    expect([...found]).toEqual(testDialect() === 'postgres' ? [] : ['security_events']);
  });

  it.skipIf(testDialect() === 'postgres')(
    'without it (migration rolled back), a sign-in stores its session and event in a transaction',
    async () => {
      const database = await createTestDatabase();
      cleanups.push(() => database.drop());
      const first = await app({ sharedDatabase: database });
      await dropCompanionInsert(first.services.db, first.services.dialect, 'security_events');
      expect((await findCompanionInserts(first.services.db, first.services.dialect)).size).toBe(0);

      const statements: string[] = [];
      const t = await app({ sharedDatabase: database, statements });
      const user = await t.createUser();
      const client = t.client();
      statements.length = 0;
      expect((await client.post('/login', { email: user.email, password: TEST_PASSWORD })).status).toBe(200);
      expect(
        statements.some((s) => /^(begin|start transaction)/i.test(s.trim())),
        statements.join('\n'),
      ).toBe(true);
      expect((await client.get('/me')).body.user.id).toBe(user.id);
      expect(await eventTypes(t, user.id)).toEqual(['sign_in']);

      // Created again, the next server start uses it.
      await createCompanionInsert(
        t.services.db,
        t.services.dialect,
        'security_events',
        SECURITY_EVENT_COLUMNS,
      );
      expect([...(await findCompanionInserts(t.services.db, t.services.dialect))]).toEqual([
        'security_events',
      ]);
    },
  );

  it.skipIf(testDialect() !== 'mysql')(
    'MySQL/MariaDB without the TRIGGER privilege: the migration leaves no trace and sign-ins still work',
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
      const limited = { ...database, url: url.toString() };

      const statements: string[] = [];
      const t = await app({ sharedDatabase: limited, statements });
      expect((await findCompanionInserts(t.services.db, t.services.dialect)).size).toBe(0);
      const columns = await t.services.db.introspection.getTables();
      const events = columns.find((table) => table.name === 'security_events')!;
      expect(events.columns.map((c) => c.name)).not.toContain('pending_session');

      const account = await t.createUser();
      const client = t.client();
      expect((await client.post('/login', { email: account.email, password: TEST_PASSWORD })).status).toBe(
        200,
      );
      expect((await client.get('/me')).body.user.id).toBe(account.id);
      expect(await eventTypes(t, account.id)).toEqual(['sign_in']);
    },
  );

  it('takes only names a migration could mean', async () => {
    const open = await openDatabase('sqlite::memory:');
    cleanups.push(() => open.close());
    await expect(
      createCompanionInsert(open.db, 'sqlite', 'events; drop table users', ['user_id']),
    ).rejects.toThrow(/unexpected name/);
  });
});
