import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { elevate } from '../../support/sudo.ts';

/*
 * onUserDeleted runs inside the deletion's transaction, which Citadel runs again when the database
 * picks it as a deadlock victim: an effect outside the database goes through `ctx.afterCommit`,
 * which runs once, after the final commit, and never for a deletion that was rolled back.
 */
describe('account deletion: in-transaction hook and after-commit effects', () => {
  let t: TestApp;
  /** In-transaction hook runs, per user id. */
  const hookRuns = new Map<number, number>();
  /** The "billing API" calls, made after commit. */
  const billed: number[] = [];
  /** Per user id: how the next hook run ends ('conflict' once, then commit; 'refuse': rollback). */
  const plan = new Map<number, 'conflict' | 'refuse'>();

  beforeAll(async () => {
    t = await startTestApp({
      onUserDeleted: async (user, { db, afterCommit }) => {
        hookRuns.set(user.id, (hookRuns.get(user.id) ?? 0) + 1);
        // A write of the application's, inside the transaction (undone with it).
        await db.selectFrom('users').select('id').where('id', '=', user.id).execute();
        afterCommit(() => void billed.push(user.id));
        const next = plan.get(user.id);
        if (next === 'conflict') {
          plan.delete(user.id);
          // What PostgreSQL says to a serialization victim: the real retry path runs it again.
          throw Object.assign(new Error('could not serialize access'), { code: '40001' });
        }
        if (next === 'refuse') throw new Error('the application refused');
      },
    });
  });
  afterAll(async () => t?.close());

  async function signedInForDeletion() {
    const user = await t.createUser();
    const client = await t.signIn(user);
    await elevate(client);
    return { user, client };
  }

  it('a deletion run again after a conflict: the hook ran twice, the effect once, after the commit', async () => {
    const { user, client } = await signedInForDeletion();
    plan.set(user.id, 'conflict');
    const response = await client.post('/account/delete');
    expect(response.status, response.text).toBe(200);
    expect(hookRuns.get(user.id)).toBe(2);
    expect(billed.filter((id) => id === user.id)).toHaveLength(1);
    expect(await t.services.users.findById(user.id)).toBeUndefined();
  });

  it('a deletion without conflict: one hook run, one effect', async () => {
    const { user, client } = await signedInForDeletion();
    expect((await client.post('/account/delete')).status).toBe(200);
    expect(hookRuns.get(user.id)).toBe(1);
    expect(billed.filter((id) => id === user.id)).toHaveLength(1);
  });

  it('a deletion rolled back: the effect the hook registered never runs', async () => {
    const { user, client } = await signedInForDeletion();
    plan.set(user.id, 'refuse');
    expect((await client.post('/account/delete')).status).toBe(500);
    expect(hookRuns.get(user.id)).toBe(1);
    expect(billed).not.toContain(user.id);
    expect(await t.services.users.findById(user.id)).toBeDefined();
  });
});
