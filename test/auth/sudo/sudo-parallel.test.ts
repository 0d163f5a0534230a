import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, TEST_PASSWORD, type TestApp } from '../../support/app.ts';

/**
 * Proof limits hold against guesses sent all at once: each attempt is counted before the proof is
 * checked, so at most five proofs are ever looked at in the window, and a correct one beyond that
 * is refused too.
 */
describe('sudo proof limit under parallel guesses', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t?.close());

  it('checks at most five of twenty simultaneous proofs, then refuses even the right one', async () => {
    const client = await t.signIn(await t.createUser());
    // Count the real password verifications the server performs.
    const passwords = t.services.passwords;
    const verify = passwords.verify.bind(passwords);
    let checked = 0;
    passwords.verify = async (hash, password) => {
      checked += 1;
      return verify(hash, password);
    };
    const guesses = Array.from({ length: 20 }, (_, i) =>
      client.post('/sudo/verify', { factor: 'password', proof: `wrong-guess-${i}` }),
    );
    const statuses = (await Promise.all(guesses)).map((r) => r.status);
    expect(statuses.filter((s) => s === 422).length).toBeLessThanOrEqual(5);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(15);
    expect(checked).toBeLessThanOrEqual(5);
    passwords.verify = verify;
    const right = await client.post('/sudo/verify', { factor: 'password', proof: TEST_PASSWORD });
    expect(right.status).toBe(429);
    expect(right.headers['retry-after']).toBeDefined();
  });

  it('a good proof clears the count', async () => {
    const client = await t.signIn(await t.createUser());
    for (let i = 0; i < 4; i++) {
      expect((await client.post('/sudo/verify', { factor: 'password', proof: 'nope' })).status).toBe(422);
    }
    expect((await client.post('/sudo/verify', { factor: 'password', proof: TEST_PASSWORD })).status).toBe(
      200,
    );
    for (let i = 0; i < 5; i++) {
      expect((await client.post('/sudo/verify', { factor: 'password', proof: 'nope' })).status).toBe(422);
    }
    expect((await client.post('/sudo/verify', { factor: 'password', proof: 'nope' })).status).toBe(429);
  });
});
