import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import { openDatabase, type OpenDatabase } from '../../src/db/open.ts';
import { MAX_NAMES_PER_CONNECTION, NAME_AFTER_USES } from '../../src/db/pg-prepared.ts';
import { createTestDatabase, testDialect, type TestDatabase } from '../support/databases.ts';

/**
 * On PostgreSQL, statements run often are prepared once per connection under a name
 * (src/db/pg-prepared.ts). One pooled connection here, so `pg_prepared_statements` (which lists
 * the statements of the session that reads it) shows exactly what the server holds for it.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a table of this test only
type AnyDb = Kysely<any>;

let database: TestDatabase;
let opened: OpenDatabase;
let db: AnyDb;
/** Another session, as a migration run by another process would be. */
let other: pg.Client;

interface Prepared {
  name: string;
  statement: string;
}

async function prepared(): Promise<Prepared[]> {
  const { rows } = await sql<Prepared>`SELECT name, statement FROM pg_prepared_statements`.execute(db);
  return rows.filter((row) => row.name.startsWith('citadel_'));
}

const readNote = (id: number) => db.selectFrom('notes').selectAll().where('id', '=', id);

describe.skipIf(testDialect() !== 'postgres')('named prepared statements on PostgreSQL', () => {
  beforeAll(async () => {
    database = await createTestDatabase();
    opened = await openDatabase(database.url, { poolSize: 1 });
    db = opened.db as unknown as AnyDb;
    await db.schema
      .createTable('notes')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('body', 'text')
      .execute();
    await db.insertInto('notes').values({ id: 1, body: 'one' }).execute();
    other = new pg.Client({ connectionString: database.url });
    await other.connect();
  });
  afterAll(async () => {
    await other?.end();
    await opened?.close();
    await database?.drop();
  });

  it('a statement is named once it was seen a few times, and then runs under that name', async () => {
    const text = readNote(1).compile().sql;
    for (let use = 1; use < NAME_AFTER_USES; use++) await readNote(1).execute();
    expect((await prepared()).map((row) => row.statement)).not.toContain(text);

    for (let use = 0; use < 5; use++) expect(await readNote(1).execute()).toEqual([{ id: 1, body: 'one' }]);
    const named = (await prepared()).filter((row) => row.statement === text);
    expect(named).toHaveLength(1);
    const { rows } = await sql<{ runs: string }>`
      SELECT (generic_plans + custom_plans)::text AS runs FROM pg_prepared_statements
      WHERE name = ${named[0]!.name}`.execute(db);
    expect(Number(rows[0]!.runs)).toBeGreaterThanOrEqual(5);
  });

  it('utility statements (BEGIN, COMMIT, DDL) are never named', async () => {
    for (let round = 0; round < NAME_AFTER_USES + 1; round++) {
      await db.transaction().execute(async (trx) => {
        await trx.updateTable('notes').set({ body: 'one' }).where('id', '=', 1).execute();
      });
    }
    const statements = (await prepared()).map((row) => row.statement.toLowerCase());
    expect(statements.some((text) => text.startsWith('update'))).toBe(true);
    expect(statements.filter((text) => /^(begin|commit|rollback|create|alter)/.test(text))).toEqual([]);
  });

  it(`a connection holds at most ${MAX_NAMES_PER_CONNECTION} names; more statements run unnamed`, async () => {
    // Distinct texts, each run often enough to be named.
    for (let variant = 0; variant < MAX_NAMES_PER_CONNECTION + 20; variant++) {
      const query = sql<{ n: number }>`SELECT ${sql.raw(String(variant))} + ${1}::int AS n`;
      for (let use = 0; use < NAME_AFTER_USES + 1; use++) {
        expect((await query.execute(db)).rows).toEqual([{ n: variant + 1 }]);
      }
    }
    expect(await prepared()).toHaveLength(MAX_NAMES_PER_CONNECTION);
  });

  it('a table changed under a prepared SELECT * is read again unnamed, and its old plan dropped', async () => {
    const text = readNote(1).compile().sql;
    const before = (await prepared()).find((row) => row.statement === text);
    expect(before).toBeDefined();

    await other.query('ALTER TABLE notes ADD COLUMN extra text');
    // PostgreSQL refuses the prepared plan (0A000, its result columns changed): the same request
    // answers with the new column instead of an error.
    expect(await readNote(1).execute()).toEqual([{ id: 1, body: 'one', extra: null }]);
    expect((await prepared()).map((row) => row.name)).not.toContain(before!.name);

    // And it is named again after a few more uses, with the new columns.
    for (let use = 0; use < NAME_AFTER_USES; use++) await readNote(1).execute();
    const again = (await prepared()).find((row) => row.statement === text);
    expect(again?.name).toBeDefined();
    expect(again?.name).not.toBe(before!.name);
  });

  it('inside a transaction the change fails that transaction only; the next one runs', async () => {
    const text = readNote(1).compile().sql;
    const before = (await prepared()).find((row) => row.statement === text)!;
    await other.query('ALTER TABLE notes ADD COLUMN later text');

    // The refused statement has aborted the transaction: nothing can be retried inside it.
    const failed = db.transaction().execute(async (trx) => {
      await trx.updateTable('notes').set({ body: 'changed' }).where('id', '=', 1).execute();
      return trx.selectFrom('notes').selectAll().where('id', '=', 1).execute();
    });
    await expect(failed).rejects.toMatchObject({ code: '0A000' });
    // Rolled back: the update did not stay.
    expect(await readNote(1).execute()).toEqual([{ id: 1, body: 'one', extra: null, later: null }]);
    // The stale plan was deallocated once the connection was outside a transaction again.
    expect((await prepared()).map((row) => row.name)).not.toContain(before.name);
  });

  it('a statement the server has forgotten (DISCARD ALL) runs again unnamed', async () => {
    for (let use = 0; use < NAME_AFTER_USES; use++) await readNote(1).execute();
    expect((await prepared()).length).toBeGreaterThan(0);
    await sql`DISCARD ALL`.execute(db);
    expect(await prepared()).toEqual([]);
    expect(await readNote(1).execute()).toEqual([{ id: 1, body: 'one', extra: null, later: null }]);
  });
});
