import { afterEach, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { migrateToLatest } from '../../../src/db/migrate.ts';
import { securityEventsUserForeignKeyMigration } from '../../../src/db/migrations/0503_security_events_user_fk.ts';
import {
  earlierAccountCenterMigrations,
  openRawDatabase,
  rawEventRow,
  rawUserRow,
} from '../../support/raw-database.ts';

/**
 * 0503 gives `security_events.user_id` its foreign key (contract 14: no event of a deleted user
 * stays behind). A database deployed before it may hold events of users deleted in a race: they
 * go, every other event stays (`account_deleted`, user_id null, included), with its indexes.
 */
describe('0503: security_events.user_id references users', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('removes orphaned events, keeps the rest, and then cascades and refuses as a foreign key does', async () => {
    const open = await openRawDatabase(cleanups);
    const db = open.db;
    // A database of an earlier version: the account center created the table, without a foreign key.
    const before = earlierAccountCenterMigrations;
    await migrateToLatest(db, open.dialect, before);

    const at = new Date().toISOString();
    const user = (name: string) => rawUserRow(name, at);
    await db
      .insertInto('users')
      .values([user('kept'), user('gone')])
      .execute();
    const ids = Object.fromEntries(
      (await db.selectFrom('users').select(['id', 'username']).execute()).map((r) => [r.username, r.id]),
    ) as Record<string, number>;
    const event = (userId: number | null, type: string) => rawEventRow(userId, type, at);
    await db
      .insertInto('security_events')
      .values([event(ids.kept!, 'sign_in'), event(ids.gone!, 'sign_in'), event(null, 'account_deleted')])
      .execute();
    // What a race left before 0503: the user is gone, its event is not.
    await db.deleteFrom('users').where('id', '=', ids.gone!).execute();
    const types = async () =>
      (await db.selectFrom('security_events').select(['user_id', 'type']).orderBy('id').execute()).map(
        (r) => `${r.user_id === null ? 'null' : r.user_id === ids.kept ? 'kept' : 'gone'}:${r.type}`,
      );
    expect(await types()).toEqual(['kept:sign_in', 'gone:sign_in', 'null:account_deleted']);

    const report = await migrateToLatest(db, open.dialect, [
      ...before,
      securityEventsUserForeignKeyMigration,
    ]);
    expect(report.applied).toEqual(['0503_security_events_user_fk']);
    expect(await types()).toEqual(['kept:sign_in', 'null:account_deleted']);
    // Ids and the autoincrement carry on (SQLite rebuilt the table).
    await db.insertInto('security_events').values(event(ids.kept!, 'sign_out')).execute();
    expect(await types()).toEqual(['kept:sign_in', 'null:account_deleted', 'kept:sign_out']);
    const indexes = (await db.introspection.getTables()).find((t) => t.name === 'security_events');
    expect(indexes).toBeTruthy();
    if (open.dialect === 'sqlite') {
      const { rows } = await sql<{ name: string }>`
        select name from sqlite_master where type = 'index' and tbl_name = 'security_events' and sql is not null
        order by name`.execute(db);
      expect(rows.map((r) => r.name)).toEqual(['security_events_created_at', 'security_events_user_created']);
    }

    // An event for a user that does not exist is refused; a user's deletion takes its events.
    await expect(
      db.insertInto('security_events').values(event(ids.gone!, 'sign_in')).execute(),
    ).rejects.toThrow();
    await db.deleteFrom('users').where('id', '=', ids.kept!).execute();
    expect(await types()).toEqual(['null:account_deleted']);
  });
});
