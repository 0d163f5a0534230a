import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Kysely } from 'kysely';
import { openDatabase, type OpenDatabase } from '../../src/db/open.ts';
import { createTestDatabase, testDialect, type TestDatabase } from '../support/databases.ts';

/**
 * Code that writes through the root handle while its own transaction is open must not wait
 * forever for SQLite's one writer (issue 15). On SQLite such a statement joins the flow's open
 * transaction (there is only one writer); on PostgreSQL and MariaDB it is a statement of its own
 * on another pooled connection. Either way it completes; other flows still wait their turn.
 */
const dialect = testDialect();

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a table of this test only
type AnyDb = Kysely<any>;

let database: TestDatabase;
let opened: OpenDatabase;
let db: AnyDb;

async function names(): Promise<string[]> {
  const rows = await db.selectFrom('notes').select('name').orderBy('name').execute();
  return rows.map((row) => row.name as string);
}

/** A few turns of the event loop: enough for a statement that is not blocked to finish. */
async function turns(count = 20): Promise<void> {
  for (let i = 0; i < count; i++) await new Promise((resolve) => setImmediate(resolve));
}

describe('the root handle inside a transaction', () => {
  beforeAll(async () => {
    database = await createTestDatabase();
    opened = await openDatabase(database.url);
    db = opened.db as unknown as AnyDb;
    await db.schema
      .createTable('notes')
      .addColumn('name', 'varchar(50)', (c) => c.primaryKey())
      .execute();
  });
  afterAll(async () => {
    await opened?.close();
    await database?.drop();
  });

  it('a write through the root handle inside the flow’s transaction completes', async () => {
    await db.deleteFrom('notes').execute();
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('notes').values({ name: 'by-trx' }).execute();
      await db.insertInto('notes').values({ name: 'by-root' }).execute();
      // A read through the root handle answers too (on SQLite it sees the transaction's rows).
      const seen = await db.selectFrom('notes').select('name').execute();
      expect(seen.map((row) => row.name)).toContain('by-root');
    });
    expect(await names()).toEqual(['by-root', 'by-trx']);
  });

  it('a transaction begun through the root handle inside another one completes', async () => {
    await db.deleteFrom('notes').execute();
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('notes').values({ name: 'outer' }).execute();
      await db.transaction().execute(async (inner) => {
        await inner.insertInto('notes').values({ name: 'inner' }).execute();
      });
    });
    expect(await names()).toEqual(['inner', 'outer']);
  });

  it('on SQLite the root write belongs to the transaction: a rollback undoes it', async () => {
    await db.deleteFrom('notes').execute();
    const failed = await db
      .transaction()
      .execute(async (trx) => {
        await trx.insertInto('notes').values({ name: 'by-trx' }).execute();
        await db.insertInto('notes').values({ name: 'by-root' }).execute();
        throw new Error('undo');
      })
      .catch((error: Error) => error.message);
    expect(failed).toBe('undo');
    // PostgreSQL and MariaDB ran the root write on its own connection, committed by itself.
    expect(await names()).toEqual(dialect === 'sqlite' ? [] : ['by-root']);
  });

  it('another flow’s write waits for the transaction and is not part of it', async () => {
    await db.deleteFrom('notes').execute();
    let letGo!: () => void;
    const gate = new Promise<void>((resolve) => (letGo = resolve));
    let markInside!: () => void;
    const inside = new Promise<void>((resolve) => (markInside = resolve));
    const transaction = db
      .transaction()
      .execute(async (trx) => {
        await trx.insertInto('notes').values({ name: 'by-trx' }).execute();
        markInside();
        await gate;
        throw new Error('undo');
      })
      .catch(() => undefined);
    await inside;

    let otherDone = false;
    const other = db
      .insertInto('notes')
      .values({ name: 'other' })
      .execute()
      .then(() => (otherDone = true));
    await turns();
    // SQLite has one writer: the other flow waits for it instead of writing into this transaction.
    if (dialect === 'sqlite') expect(otherDone).toBe(false);
    letGo();
    await Promise.all([transaction, other]);
    expect(otherDone).toBe(true);
    expect(await names()).toEqual(['other']);
  });
});
