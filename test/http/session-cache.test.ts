import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type OpenDatabase } from '../../src/db/open.ts';
import { writeGeneration, type WriteGeneration } from '../../src/db/write-watch.ts';
import { RECENT_ROW_MS as SESSION_CACHE_MS } from '../../src/db/recent-rows.ts';
import { startTestApp, type TestApp } from '../support/app.ts';

/*
 * A signed-in request reads its session and user from memory when this process read them in the
 * last second and has written no session or user since (src/db/recent-rows.ts). Within the
 * process every change is seen by the next request; a change made by another process (another
 * server on the same database) within SESSION_CACHE_MS.
 */
/** Ask again every 50 ms while the answer is 200, until a second and a half after `since`: the last status. */
async function whileAccepted(since: number, ask: () => Promise<number>): Promise<number> {
  let status = 200;
  while (status === 200 && performance.now() - since < SESSION_CACHE_MS + 500) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    status = await ask();
  }
  return status;
}

describe('sessions and tokens kept in memory for a second', () => {
  let t: TestApp;
  /** The same database opened again: another process, as far as the server can tell. */
  let other: OpenDatabase;
  let writes: WriteGeneration;

  beforeAll(async () => {
    t = await startTestApp();
    other = await openDatabase(t.database.url);
    writes = writeGeneration(t.services.db)!;
  });
  afterAll(async () => {
    await other?.close();
    await t?.close();
  });

  it('this process: a sign-out, a revoked session, a deactivated or renamed user are seen by the next request', async () => {
    const user = await t.createUser();
    const phone = await t.signIn(user);
    const laptop = await t.signIn(user);
    expect((await phone.get('/me')).status).toBe(200);
    expect((await laptop.get('/me')).status).toBe(200);

    // Renamed through the server's database handle, as every Citadel write is.
    await t.services.db
      .updateTable('users')
      .set({ username: `${user.username}x` })
      .where('id', '=', user.id)
      .execute();
    expect((await phone.get('/me')).body.user.username).toBe(`${user.username}x`);

    expect((await laptop.post('/sessions/revoke-others', {})).status).toBe(200);
    expect((await phone.get('/me')).status).toBe(401);

    expect((await laptop.get('/me')).status).toBe(200);
    await t.services.db.updateTable('users').set({ active: 0 }).where('id', '=', user.id).execute();
    expect((await laptop.get('/me')).status).toBe(401);
  });

  it('this process: a write inside a transaction is seen once it commits, and a rolled-back one changes nothing', async () => {
    const user = await t.createUser();
    const client = await t.signIn(user);
    expect((await client.get('/me')).status).toBe(200);
    const before = writes.value;
    await t.services.db.transaction().execute(async (trx) => {
      await trx
        .updateTable('users')
        .set({ username: `${user.username}y` })
        .where('id', '=', user.id)
        .execute();
    });
    expect(writes.value).toBeGreaterThan(before);
    expect((await client.get('/me')).body.user.username).toBe(`${user.username}y`);

    await expect(
      t.services.db.transaction().execute(async (trx) => {
        await trx
          .updateTable('users')
          .set({ username: `${user.username}z` })
          .where('id', '=', user.id)
          .execute();
        throw new Error('undo');
      }),
    ).rejects.toThrow('undo');
    expect((await client.get('/me')).body.user.username).toBe(`${user.username}y`);
  });

  it('another process: a revoked session is refused within a second', async () => {
    const user = await t.createUser();
    const client = await t.signIn(user);
    const readAt = performance.now();
    expect((await client.get('/me')).status).toBe(200);
    await other.db.deleteFrom('sessions').where('user_id', '=', user.id).execute();
    const seenAt = performance.now();
    // Served from memory meanwhile (unless this machine took the whole second to get here).
    const meanwhile = (await client.get('/me')).status;
    if (performance.now() - readAt < SESSION_CACHE_MS * 0.8) expect(meanwhile).toBe(200);
    const status =
      meanwhile === 200
        ? await whileAccepted(seenAt, async () => (await client.get('/me')).status)
        : meanwhile;
    expect(status).toBe(401);
    expect(performance.now() - readAt).toBeLessThan(SESSION_CACHE_MS + 500);
  });

  it('personal access tokens: a revoked token is refused by the next request here, within a second elsewhere', async () => {
    const user = await t.createUser();
    const bearer = async (token: string) =>
      (
        await t.app.inject({
          method: 'GET',
          url: '/me',
          headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
        })
      ).statusCode;
    const first = await t.services.tokens.issue({
      userId: user.id,
      name: 'a',
      abilities: ['*'],
      expiresAt: null,
    });
    expect(await bearer(first.token)).toBe(200);
    expect(await t.services.tokens.revoke(user.id, first.record.id)).toBe(true);
    expect(await bearer(first.token)).toBe(401);

    const second = await t.services.tokens.issue({
      userId: user.id,
      name: 'b',
      abilities: ['*'],
      expiresAt: null,
    });
    expect(await bearer(second.token)).toBe(200);
    const revokedAt = performance.now();
    await other.db.deleteFrom('personal_access_tokens').where('id', '=', second.record.id).execute();
    expect(await whileAccepted(revokedAt, () => bearer(second.token))).toBe(401);
  });

  it('counts only the writes that can change a session or a user', async () => {
    const db = t.services.db;
    const user = await t.createUser();
    let at = writes.value;
    const moved = () => {
      const changed = writes.value !== at;
      at = writes.value;
      return changed;
    };
    await db.selectFrom('users').selectAll().execute();
    await db.selectFrom('sessions').selectAll().execute();
    await sql`select 1`.execute(db);
    expect(moved()).toBe(false);
    await db
      .updateTable('users')
      .set({ updated_at: new Date().toISOString() })
      .where('id', '=', user.id)
      .execute();
    expect(moved()).toBe(true);
    await db.deleteFrom('sessions').where('user_id', '=', -1).execute();
    expect(moved()).toBe(true);
    await db.deleteFrom('remember_tokens').where('user_id', '=', -1).execute();
    expect(moved()).toBe(false);
    // Raw SQL and schema changes: it cannot tell what they write, so it assumes they write these.
    await sql`update remember_tokens set user_id = user_id where user_id = -1`.execute(db);
    expect(moved()).toBe(true);
    await db.schema.createTable('session_cache_probe').ifNotExists().addColumn('id', 'integer').execute();
    expect(moved()).toBe(true);
    await db.schema.dropTable('session_cache_probe').execute();
    moved();
    // A handle made from the server's (a transaction, withPlugin) has no counter: it caches nothing.
    await db.transaction().execute(async (trx) => {
      expect(writeGeneration(trx)).toBeUndefined();
    });
  });
});
