import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql, type Kysely } from 'kysely';
import { openDatabase, type OpenDatabase } from '../../src/db/open.ts';
import { readNow } from '../../src/db/read-now.ts';
import { createTestDatabase, testDialect, type TestDatabase } from '../support/databases.ts';

/**
 * `readNow` answers SQLite's point reads at once (no connection, no promise), and nothing else: a
 * read that is not bounded by a key, a read inside the flow's open transaction (only the writer
 * sees its rows), a transaction's handle, and every other dialect take the usual way. What it
 * runs is still told to the query log, so statement counts stay whole.
 */
const dialect = testDialect();

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a table of this test only
type AnyDb = Kysely<any>;

describe('readNow: point reads answered at once', () => {
  let database: TestDatabase;
  let opened: OpenDatabase;
  let db: AnyDb;
  const logged: string[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    opened = await openDatabase(database.url, { onQuery: (text) => logged.push(text) });
    db = opened.db as unknown as AnyDb;
    await db.schema
      .createTable('read_now_notes')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('name', 'varchar(50)')
      .execute();
    await db
      .insertInto('read_now_notes')
      .values([
        { id: 1, name: 'one' },
        { id: 2, name: 'two' },
      ])
      .execute();
  });
  afterAll(async () => {
    await opened?.close();
    await database?.drop();
  });

  const byId = (handle: AnyDb, id: number) =>
    handle.selectFrom('read_now_notes').select(['id', 'name']).where('id', '=', id).compile();

  it('a read by primary key: the rows at once on SQLite (and logged), undefined elsewhere', () => {
    logged.length = 0;
    const rows = readNow(db, byId(db, 2));
    if (dialect === 'sqlite') {
      expect(rows).toEqual([{ id: 2, name: 'two' }]);
      expect(readNow(db, byId(db, 3))).toEqual([]);
      expect(logged.filter((text) => text.includes('read_now_notes'))).toHaveLength(2);
    } else expect(rows).toBeUndefined();
  });

  it('a read that is not bounded by a key takes the usual way', () => {
    const scan = db.selectFrom('read_now_notes').select('name').where('name', '=', 'one').compile();
    expect(readNow(db, scan)).toBeUndefined();
    expect(readNow(db, sql`select count(*) as n from read_now_notes`.compile(db))).toBeUndefined();
  });

  it("inside a transaction: neither the transaction's handle nor the root handle reads at once", async () => {
    await db.transaction().execute(async (trx) => {
      await trx.updateTable('read_now_notes').set({ name: 'changed' }).where('id', '=', 1).execute();
      expect(readNow(trx, byId(trx, 1))).toBeUndefined();
      // The root handle inside this flow's transaction: only the writer has the uncommitted row
      // (on SQLite the root handle joins the transaction; elsewhere it is another connection).
      expect(readNow(db, byId(db, 1))).toBeUndefined();
      const [row] = (await db.executeQuery(byId(db, 1))).rows;
      expect(row).toEqual({ id: 1, name: dialect === 'sqlite' ? 'changed' : 'one' });
    });
    // Committed: the point-read connection sees it.
    if (dialect === 'sqlite') expect(readNow(db, byId(db, 1))).toEqual([{ id: 1, name: 'changed' }]);
  });

  it('another flow reads at once while a transaction is open elsewhere, and sees the committed row', async () => {
    if (dialect !== 'sqlite') return;
    let letGo!: () => void;
    const gate = new Promise<void>((resolve) => (letGo = resolve));
    let markInside!: () => void;
    const inside = new Promise<void>((resolve) => (markInside = resolve));
    const transaction = db.transaction().execute(async (trx) => {
      await trx.updateTable('read_now_notes').set({ name: 'pending' }).where('id', '=', 2).execute();
      markInside();
      await gate;
    });
    await inside;
    // Only in this test's own flow: the open transaction belongs to the other one.
    const seen = await new Promise<unknown>((resolve) =>
      setImmediate(() => resolve(readNow(db, byId(db, 2)))),
    );
    expect(seen).toEqual([{ id: 2, name: 'two' }]);
    letGo();
    await transaction;
    expect(readNow(db, byId(db, 2))).toEqual([{ id: 2, name: 'pending' }]);
  });
});
