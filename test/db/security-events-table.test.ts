import { afterEach, describe, expect, it } from 'vitest';
import type { Kysely } from 'kysely';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { coreMigrations } from '../../src/db/migrations/index.ts';
import { citadelMigrations } from '../../src/app/assembly.ts';
import { accountCenter } from '../../src/auth/account-center/plugin.ts';
import { securityEventsUserForeignKeyMigration } from '../../src/db/migrations/0503_security_events_user_fk.ts';
import {
  earlierAccountCenterMigrations,
  openRawDatabase,
  rawEventRow,
  rawUserRow,
} from '../support/raw-database.ts';

/**
 * The security event log is the core's (0007_security_events): created whatever plugins are
 * present, with the user's foreign key; a database where an earlier version's account center
 * created it keeps its table and rows, and gets the foreign key from 0503 if it lacked it.
 */
describe('security_events: a core table', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  const freshDatabase = () => openRawDatabase(cleanups);

  const at = new Date().toISOString();
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- below the typed schema
  async function addUser(db: Kysely<any>, name: string): Promise<number> {
    await db.insertInto('users').values(rawUserRow(name, at)).execute();
    return (await db.selectFrom('users').select('id').where('username', '=', name).executeTakeFirstOrThrow())
      .id;
  }
  const event = (userId: number | null, type: string) => rawEventRow(userId, type, at);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- below the typed schema
  const types = async (db: Kysely<any>) =>
    (await db.selectFrom('security_events').select('type').orderBy('id').execute()).map((r) => r.type);

  it('the core alone creates it, with the foreign key: a user takes its events along', async () => {
    const { db, dialect } = await freshDatabase();
    const report = await migrateToLatest(db, dialect, coreMigrations);
    expect(report.applied).toContain('0007_security_events');
    const user = await addUser(db, 'alone');
    await db
      .insertInto('security_events')
      .values([event(user, 'sign_out'), event(null, 'account_deleted')])
      .execute();
    await expect(
      db
        .insertInto('security_events')
        .values(event(user + 1000, 'sign_in'))
        .execute(),
    ).rejects.toThrow();
    await db.deleteFrom('users').where('id', '=', user).execute();
    expect(await types(db)).toEqual(['account_deleted']);
  });

  it('with the account center from the start: its migrations no longer create the table', async () => {
    const { db, dialect } = await freshDatabase();
    const report = await migrateToLatest(db, dialect, citadelMigrations([accountCenter()]));
    expect(report.applied).toEqual(
      expect.arrayContaining(['0007_security_events', '0500_account_center', '0503_security_events_user_fk']),
    );
    const user = await addUser(db, 'center');
    await db.insertInto('security_events').values(event(user, 'email_changed')).execute();
    await db.deleteFrom('users').where('id', '=', user).execute();
    expect(await types(db)).toEqual([]);
  });

  for (const withForeignKey of [true, false]) {
    it(`a database an earlier account center made (${withForeignKey ? 'with' : 'before'} 0503) keeps its table and rows`, async () => {
      const { db, dialect } = await freshDatabase();
      const before = [
        ...earlierAccountCenterMigrations,
        ...(withForeignKey ? [securityEventsUserForeignKeyMigration] : []),
      ];
      await migrateToLatest(db, dialect, before);
      const user = await addUser(db, 'earlier');
      await db
        .insertInto('security_events')
        .values([event(user, 'sign_in'), event(null, 'account_deleted')])
        .execute();

      // This version: nothing is created twice, and a second start applies nothing.
      const report = await migrateToLatest(db, dialect, citadelMigrations([accountCenter()]));
      expect(report.applied.sort()).toEqual(
        withForeignKey ? ['0007_security_events'] : ['0007_security_events', '0503_security_events_user_fk'],
      );
      expect(await types(db)).toEqual(['sign_in', 'account_deleted']);
      expect((await migrateToLatest(db, dialect, citadelMigrations([accountCenter()]))).applied).toEqual([]);
      // The foreign key holds either way.
      await expect(
        db
          .insertInto('security_events')
          .values(event(user + 1000, 'sign_in'))
          .execute(),
      ).rejects.toThrow();
      await db.deleteFrom('users').where('id', '=', user).execute();
      expect(await types(db)).toEqual(['account_deleted']);
    });
  }
});
