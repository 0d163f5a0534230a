import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';

async function failSixTimes(t: TestApp, email: string, ip: string): Promise<number> {
  let status = 0;
  for (let i = 0; i < 6; i++) {
    const res = await t.client().post('/login', { email, password: `bad-${i}-password` }, 'json', {
      headers: { 'x-forwarded-for': ip },
    });
    status = res.status;
  }
  return status;
}

describe('client IP for rate limits', () => {
  let direct: TestApp;
  let proxied: TestApp;
  beforeAll(async () => {
    direct = await startTestApp();
    proxied = await startTestApp({ trustProxy: true });
  });
  afterAll(async () => {
    await direct?.close();
    await proxied?.close();
  });

  it('without TRUST_PROXY a forged X-Forwarded-For does not escape the limit', async () => {
    const user = await direct.createUser();
    expect(await failSixTimes(direct, user.email, '10.0.0.1')).toBe(429);
    const res = await direct
      .client()
      .post('/login', { email: user.email, password: 'x-password-1' }, 'json', {
        headers: { 'x-forwarded-for': '10.0.0.2' },
      });
    expect(res.status).toBe(429);
  });

  it('with TRUST_PROXY the limit follows the forwarded client address', async () => {
    const user = await proxied.createUser();
    expect(await failSixTimes(proxied, user.email, '10.0.0.1')).toBe(429);
    const other = await proxied
      .client()
      .post('/login', { email: user.email, password: 'x-password-1' }, 'json', {
        headers: { 'x-forwarded-for': '10.0.0.2' },
      });
    expect(other.status).toBe(401);
  });
});
