/**
 * Issue 13, items 7 and 10: limits that count exactly under parallel requests. Each rate-limit hit
 * is one atomic statement (its own count, never another request's), and the per-account sign-in
 * limit is counted before the password is checked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, TEST_PASSWORD, type TestApp } from '../support/app.ts';
import { defaultPlugins } from '../../src/auth/index.ts';
import { DatabaseRateLimitStore } from '../../src/http/limits/rate-limit.ts';

describe('rate-limit store under parallel hits', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t?.close());

  it('20 parallel hits on a fresh key each get their own count: exactly 1..20', async () => {
    const store = new DatabaseRateLimitStore(t.services.db, t.services.dialect, t.clock);
    const states = await Promise.all(Array.from({ length: 20 }, () => store.hit('race:fresh', 3600)));
    expect(states.map((s) => s.count).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 20 }, (_, i) => i + 1),
    );
    expect((await store.peek('race:fresh')).count).toBe(20);
    for (const state of states) expect(state.retryAfter).toBeGreaterThan(3500);
  });

  it('an ended window restarts at 1 inside the same statement, also under parallel hits', async () => {
    const store = new DatabaseRateLimitStore(t.services.db, t.services.dialect, t.clock);
    await store.hit('race:restart', 60);
    await store.hit('race:restart', 60);
    t.clock.advance(61);
    const states = await Promise.all(Array.from({ length: 10 }, () => store.hit('race:restart', 60)));
    expect(states.map((s) => s.count).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 10 }, (_, i) => i + 1),
    );
  });

  it('hits racing with resets never fail', async () => {
    const store = new DatabaseRateLimitStore(t.services.db, t.services.dialect, t.clock);
    const work = [];
    for (let i = 0; i < 20; i += 1) {
      work.push(store.hit('race:reset', 3600));
      work.push(store.reset('race:reset'));
    }
    await expect(Promise.all(work)).resolves.toBeDefined();
  });

  it('20 parallel first-time forgot-password requests for one address: exactly the 5 allowed mails', async () => {
    const user = await t.createUser();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => t.client().post('/forgot-password', { email: user.email })),
    );
    expect(answers.filter((a) => a.status === 200)).toHaveLength(5);
    expect(answers.filter((a) => a.status === 429)).toHaveLength(15);
    await t.mail.settled();
    expect(t.mail.to(user.email)).toHaveLength(5);
  });

  it('20 parallel wrong sign-ins from one address: exactly 5 passwords checked (401), 15 refused', async () => {
    const user = await t.createUser();
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        t.client().post('/login', { email: user.email, password: `bad-${i}-pw` }),
      ),
    );
    expect(answers.filter((a) => a.status === 401)).toHaveLength(5);
    expect(answers.filter((a) => a.status === 429)).toHaveLength(15);
  });
});

describe('per-account sign-in limit under a parallel burst', () => {
  let t: TestApp;
  beforeAll(async () => {
    // One proxy hop, so each request can come from its own client address (the pair limit stays out).
    t = await startTestApp({
      trustProxy: 1,
      plugins: defaultPlugins({ accounts: { loginFailuresPerAccount: 3 } }),
    });
  });
  afterAll(async () => t?.close());

  it('20 parallel wrong passwords from 20 addresses: no more than 3 checked; then even the right one is 429', async () => {
    const user = await t.createUser();
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        t.client().post('/login', { email: user.email, password: `bad-${i}-pw` }, 'json', {
          headers: { 'x-forwarded-for': `198.51.100.${i + 1}` },
        }),
      ),
    );
    expect(answers.filter((a) => a.status === 401)).toHaveLength(3);
    expect(answers.filter((a) => a.status === 429)).toHaveLength(17);
    const right = await t.client().post('/login', { email: user.email, password: TEST_PASSWORD }, 'json', {
      headers: { 'x-forwarded-for': '198.51.100.99' },
    });
    expect(right.status).toBe(429);
  });

  it('successful sign-ins do not use up the account budget', async () => {
    const user = await t.createUser();
    for (let i = 0; i < 6; i += 1) {
      const ok = await t.client().post('/login', { email: user.email, password: TEST_PASSWORD }, 'json', {
        headers: { 'x-forwarded-for': `203.0.113.${i + 1}` },
      });
      expect(ok.status).toBe(200);
    }
  });
});
