/**
 * Issue 13, item 1: second-factor guesses are counted per account across pending contexts (10 per
 * hour, then 429, a mail); a password reset or change ends pending sign-in contexts.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestApp, TEST_PASSWORD, type TestApp } from '../support/app.ts';
import { linkIn } from '../support/mail.ts';
import { enrollTotp, nextStep, startLogin, totpCode } from '../support/factors.ts';
import {
  SECOND_FACTOR_FAILURES_PER_ACCOUNT,
  SECOND_FACTOR_WINDOW,
} from '../../src/auth/core/second-factor-budget.ts';
import type { UserRecord } from '../../src/auth/core/users.ts';
import { sudoOptions } from '../../src/auth/sudo/options.ts';

function otherCode(code: string): string {
  return String((Number(code) + 1) % 1_000_000).padStart(6, '0');
}

describe('second-factor failures per account', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t?.close());
  // A fresh hour for every test: the budget window is clock-aligned.
  beforeEach(() => t.clock.advance(2 * SECOND_FACTOR_WINDOW));

  async function totpUser(): Promise<{ user: UserRecord; secret: string }> {
    const user = await t.createUser();
    const { secret } = await enrollTotp(t, await t.signIn(user));
    nextStep(t);
    return { user, secret };
  }

  it('10 wrong codes spread over new sign-ins lock the account: the right code is then 429, and the owner gets one mail', async () => {
    const { user, secret } = await totpUser();
    const right = totpCode(t, secret);
    let wrong = 0;
    // Four wrong codes per context (below the per-context budget of 5), three contexts.
    while (wrong < SECOND_FACTOR_FAILURES_PER_ACCOUNT) {
      const client = await startLogin(t, user);
      for (let i = 0; i < 4 && wrong < SECOND_FACTOR_FAILURES_PER_ACCOUNT; i += 1, wrong += 1) {
        const bad = await client.post('/action/handle', { code: otherCode(right) });
        expect(bad.status, `wrong code ${wrong + 1}`).not.toBe(429);
        expect(bad.body.action).not.toBe('action.success');
      }
    }
    // Only lock notices count: the enrollment notice of the setup may arrive meanwhile.
    const isLockNotice = (m: { subject: string }) => /locked/i.test(m.subject);
    const mailsBefore = t.mail.to(user.email).filter(isLockNotice).length;
    const client = await startLogin(t, user);
    const locked = await client.post('/action/handle', { code: right });
    expect(locked.status).toBe(429);
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
    expect((await client.get('/me')).status).toBe(401);
    const notice = await t.mail.waitFor(user.email, { count: mailsBefore + 1, match: isLockNotice });
    expect(notice.subject).toMatch(/locked/i);
    // Another refusal sends no second mail.
    expect((await client.post('/action/handle', { code: right })).status).toBe(429);
    await t.mail.settled();
    expect(t.mail.to(user.email).filter(isLockNotice)).toHaveLength(mailsBefore + 1);

    // The next window gives the account its budget back.
    t.clock.advance(SECOND_FACTOR_WINDOW);
    nextStep(t);
    const later = await startLogin(t, user);
    const ok = await later.post('/action/handle', { code: totpCode(t, secret) });
    expect(ok.body.action).toBe('action.success');
  });

  it('a correct sign-in does not reset the count, and sudo proofs use the same budget', async () => {
    const { user, secret } = await totpUser();
    const signedIn = await startLogin(t, user);
    expect((await signedIn.post('/action/handle', { code: totpCode(t, secret) })).body.action).toBe(
      'action.success',
    );
    for (let i = 0; i < SECOND_FACTOR_FAILURES_PER_ACCOUNT; i += 1) {
      // Alternate sign-in contexts and sudo proofs; the sudo limit (5 per 15 min) is stepped over.
      if (i % 2 === 0) {
        const client = await startLogin(t, user);
        const bad = await client.post('/action/handle', { code: '000000' });
        expect(bad.status).not.toBe(429);
      } else {
        const bad = await signedIn.post('/sudo/verify', { factor: 'password', proof: 'not the password' });
        expect(bad.status).toBe(422);
        t.clock.advance(sudoOptions(t.services).failureWindowSeconds / 4);
      }
      // A correct password sign-in in between resets nothing.
      const password = await t.client().post('/login', { email: user.email, password: TEST_PASSWORD });
      expect(password.body.action).toBe('login.action_required');
    }
    const sudo = await signedIn.post('/sudo/verify', { factor: 'password', proof: TEST_PASSWORD });
    expect(sudo.status).toBe(429);
    nextStep(t);
    const client = await startLogin(t, user);
    expect((await client.post('/action/handle', { code: totpCode(t, secret) })).status).toBe(429);
  });

  it('20 parallel wrong codes over 20 contexts: at most 10 are checked, the rest 429', async () => {
    const { user, secret } = await totpUser();
    const clients = [];
    for (let i = 0; i < 20; i += 1) clients.push(await startLogin(t, user));
    const wrong = otherCode(totpCode(t, secret));
    const answers = await Promise.all(clients.map((c) => c.post('/action/handle', { code: wrong })));
    const checked = answers.filter((a) => a.status !== 429).length;
    expect(checked).toBeLessThanOrEqual(SECOND_FACTOR_FAILURES_PER_ACCOUNT);
    expect(answers.filter((a) => a.status === 429).length).toBeGreaterThanOrEqual(10);
    expect(answers.every((a) => a.status < 500)).toBe(true);
  });

  it('a password reset ends a sign-in begun with the old password: its right code no longer signs in', async () => {
    const { user, secret } = await totpUser();
    const pending = await startLogin(t, user);
    const isReset = (m: { text: string }) => m.text.includes('/reset-password?token=');
    const count = t.mail.to(user.email).filter(isReset).length + 1;
    await t.client().post('/forgot-password', { email: user.email });
    const mail = await t.mail.waitFor(user.email, { count, match: isReset });
    const token = new URL(linkIn(mail, 'http://localhost:3000/reset-password?token=')).searchParams.get(
      'token',
    )!;
    const password = 'brand-new-maple-lantern-7';
    const reset = await t.client().post('/reset-password', { token, password, password_confirm: password });
    expect(reset.status, reset.text).toBe(200);
    const late = await pending.post('/action/handle', { code: totpCode(t, secret) });
    expect(late.status).toBe(401);
    expect((await pending.get('/me')).status).toBe(401);
    expect((await pending.get('/action/show')).status).toBe(401);
  });
});
