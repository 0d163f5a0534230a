/**
 * Issue 13, "keep it fixed": single-use secrets under 20 parallel attempts, exactly one wins.
 * The password-reset token, a recovery code, and one TOTP step (a code is good once per step,
 * whichever pending context sends it). Runs on every database (PostgreSQL and MariaDB included).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';
import { linkIn } from '../support/mail.ts';
import type { TestClient, TestResponse } from '../support/client.ts';
import { enrollTotp, nextStep, startLogin, totpCode } from '../support/factors.ts';
import { SECOND_FACTOR_WINDOW } from '../../src/auth/core/second-factor-budget.ts';
import type { UserRecord } from '../../src/auth/core/users.ts';

const PARALLEL = 20;

async function sessionCount(t: TestApp, user: UserRecord): Promise<number> {
  const row = await t.services.db
    .selectFrom('sessions')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('user_id', '=', user.id)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

describe('single-use secrets under 20 parallel attempts', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t?.close());
  // A fresh second-factor budget window per test.
  beforeEach(() => t.clock.advance(2 * SECOND_FACTOR_WINDOW));

  it('a password-reset token sets exactly one of 20 parallel new passwords', async () => {
    const user = await t.createUser();
    expect((await t.client().post('/forgot-password', { email: user.email })).status).toBe(200);
    const mail = await t.mail.waitFor(user.email, { count: 1, match: (m) => /reset/i.test(m.subject) });
    const token = new URL(linkIn(mail, 'http://localhost:3000/reset-password?token=')).searchParams.get(
      'token',
    )!;

    const passwords = Array.from({ length: PARALLEL }, (_, i) => `race-new-password-${i}`);
    const answers = await Promise.all(
      passwords.map((password) =>
        t.client().post('/reset-password', { token, password, password_confirm: password }),
      ),
    );
    const winners = answers.filter((a) => a.status === 200);
    expect(winners, answers.map((a) => a.status).join(',')).toHaveLength(1);
    for (const loser of answers.filter((a) => a.status !== 200)) {
      expect(loser.status).toBeGreaterThanOrEqual(400);
      expect(loser.status).toBeLessThan(500);
    }
    // The stored hash is the winner's password and no other.
    const winner = passwords[answers.indexOf(winners[0]!)]!;
    const stored = (await t.services.users.findById(user.id))!.password_hash!;
    const matches = await Promise.all(passwords.map((p) => t.services.passwords.verify(stored, p)));
    expect(passwords.filter((_, i) => matches[i])).toEqual([winner]);
    expect((await t.client().post('/login', { email: user.email, password: winner })).status).toBe(200);
  });

  async function signedInBy(client: TestClient, response: TestResponse): Promise<boolean> {
    if (response.body?.action !== 'action.success') return false;
    return (await client.get('/me')).status === 200;
  }

  it('a recovery code signs in exactly one of 20 parallel pending sign-ins', async () => {
    const user = await t.createUser();
    const { recoveryCodes } = await enrollTotp(t, await t.signIn(user));
    const clients: TestClient[] = [];
    for (let i = 0; i < PARALLEL; i += 1) clients.push(await startLogin(t, user));
    const before = await sessionCount(t, user);

    const answers = await Promise.all(
      clients.map((client) =>
        client.post('/action/handle', { factor: 'recovery_code', proof: recoveryCodes![0] }),
      ),
    );
    const outcomes = await Promise.all(clients.map((client, i) => signedInBy(client, answers[i]!)));
    expect(outcomes.filter(Boolean), answers.map((a) => a.status).join(',')).toHaveLength(1);
    for (const answer of answers) expect(answer.status).toBeLessThan(500);
    expect(await sessionCount(t, user)).toBe(before + 1);
    expect(
      (await clients[outcomes.indexOf(true)]!.get('/two-factor')).body.data.recovery_codes_remaining,
    ).toBe(9);
  });

  it('one TOTP code (one step) signs in exactly one of 20 parallel pending sign-ins', async () => {
    const user = await t.createUser();
    const { secret } = await enrollTotp(t, await t.signIn(user));
    // The enrollment used the current step: move to a fresh one the account has never seen.
    nextStep(t);
    const clients: TestClient[] = [];
    for (let i = 0; i < PARALLEL; i += 1) clients.push(await startLogin(t, user));
    const before = await sessionCount(t, user);
    const code = totpCode(t, secret);

    const answers = await Promise.all(clients.map((client) => client.post('/action/handle', { code })));
    const outcomes = await Promise.all(clients.map((client, i) => signedInBy(client, answers[i]!)));
    expect(outcomes.filter(Boolean), answers.map((a) => a.status).join(',')).toHaveLength(1);
    for (const answer of answers) expect(answer.status).toBeLessThan(500);
    expect(await sessionCount(t, user)).toBe(before + 1);
  });
});
