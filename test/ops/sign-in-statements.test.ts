import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, TEST_PASSWORD, type TestApp } from '../helpers/app.ts';

/**
 * A password sign-in of an account with no second factor. Issue 12 aims at 6; since the account
 * center's `sign_in` event (a read for the new-device notice, an insert) and issue 13's per-account
 * budget (counted before the password check, given back on success) it is 9, and this guards that
 * figure until the aim is met (the statements are listed when it fails).
 */
const MAX_SIGN_IN_STATEMENTS = 8;

describe('SQL statements per request', () => {
  const statements: string[] = [];
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ database: { onQuery: (sql) => statements.push(sql) } });
  });
  afterAll(async () => t?.close());

  const during = async (request: () => Promise<unknown>) => {
    statements.length = 0;
    await request();
    return [...statements];
  };

  it(`a password sign-in with no second factor runs at most ${MAX_SIGN_IN_STATEMENTS}`, async () => {
    const user = await t.createUser();
    const client = t.client();
    const sql = await during(async () => {
      const response = await client.post('/login', { email: user.email, password: TEST_PASSWORD });
      expect(response.status).toBe(200);
      expect(response.body.action).toBe('login.attempt');
    });
    expect(sql.length, sql.join('\n')).toBeLessThanOrEqual(MAX_SIGN_IN_STATEMENTS);
    // And it did sign in: the session row exists and GET /me answers with the user.
    expect(sql.some((s) => /insert into [`"]sessions[`"]/i.test(s))).toBe(true);
    expect((await client.get('/me')).body.user.id).toBe(user.id);
  });

  it('signing in again from a signed-in browser adds only what the old session costs', async () => {
    const user = await t.createUser();
    const client = await t.signIn(user);
    const sql = await during(() => client.post('/login', { email: user.email, password: TEST_PASSWORD }));
    // On top of a fresh sign-in: the old session is loaded, its user resolved, and the row removed.
    expect(sql.length, sql.join('\n')).toBeLessThanOrEqual(MAX_SIGN_IN_STATEMENTS + 3);
  });

  it('GET /me with a session cookie reads the session and the user: 2 statements', async () => {
    const user = await t.createUser();
    const client = await t.signIn(user);
    const sql = await during(() => client.get('/me'));
    expect(sql.length, sql.join('\n')).toBe(2);
  });

  it('an anonymous request with no cookie reads nothing for the session', async () => {
    const sql = await during(() => t.client().get('/me'));
    expect(sql).toEqual([]);
  });
});
