/**
 * Contract section 4 limits that no feature suite covered: magic-link sends per IP.
 * (docs/security.md lists every limit and the test that enforces it.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';

describe('magic-link sends per IP', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t?.close());

  it('at most 30 per IP per hour, whatever the addresses; then 429 and no mail, until the window passes', async () => {
    const user = await t.createUser();
    const perIp = t.services.config.limits.sendsPerIp;
    expect(perIp).toBe(30);
    for (let i = 0; i < perIp; i += 1) {
      // Distinct unknown addresses: the per-address limit (5) never applies.
      const response = await t.client().post('/magic-link', { email: `nobody${i}@example.com` });
      expect(response.status, `send ${i + 1}`).toBe(200);
    }
    const over = await t.client().post('/magic-link', { email: user.email });
    expect(over.status).toBe(429);
    expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
    // Every send started so far is done: none of them went to this address.
    await t.mail.settled();
    expect(t.mail.to(user.email)).toHaveLength(0);

    t.clock.advance(t.services.config.limits.sendWindow + 1);
    expect((await t.client().post('/magic-link', { email: user.email })).status).toBe(200);
    await t.mail.waitFor(user.email, { count: 1 });
  });
});
