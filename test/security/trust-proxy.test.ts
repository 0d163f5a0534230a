/**
 * Issue 13, item 6: TRUST_PROXY is a hop count or a list of proxy addresses/CIDRs, never "trust
 * everything"; the client address is the right-most untrusted X-Forwarded-For entry.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { startTestApp, type TestApp } from '../support/app.ts';
import { loadConfig } from '../../src/config/load.ts';
import { ConfigError } from '../../src/core/errors.ts';

const routes = (app: FastifyInstance) => {
  app.get('/test/ip', { config: { action: 'test.ip' } }, async (request) => ({ ip: request.ip }));
};

async function ipSeen(t: TestApp, forwardedFor: string): Promise<string> {
  const res = await t.client().get('/test/ip', 'json', { headers: { 'x-forwarded-for': forwardedFor } });
  return res.body.ip as string;
}

describe('TRUST_PROXY', () => {
  let oneHop: TestApp;
  let listed: TestApp;
  beforeAll(async () => {
    oneHop = await startTestApp({ env: { TRUST_PROXY: '1' }, routes });
    // Inject's socket address is 127.0.0.1: the front proxy; 10.1.0.0/16 is an inner tier.
    listed = await startTestApp({ env: { TRUST_PROXY: '127.0.0.1, 10.1.0.0/16' }, routes });
  });
  afterAll(async () => {
    await oneHop?.close();
    await listed?.close();
  });

  it('one hop: the right-most entry is the client; what the client wrote to the left changes nothing', async () => {
    expect(await ipSeen(oneHop, '203.0.113.9')).toBe('203.0.113.9');
    expect(await ipSeen(oneHop, '198.51.100.1, 203.0.113.9')).toBe('203.0.113.9');
    expect(await ipSeen(oneHop, '1.2.3.4, 5.6.7.8, 203.0.113.9')).toBe('203.0.113.9');
  });

  it('a forged left-most entry does not escape the per-(identifier, IP) sign-in limit', async () => {
    const user = await oneHop.createUser();
    let status = 0;
    for (let i = 0; i < 7; i += 1) {
      const res = await oneHop
        .client()
        .post('/login', { email: user.email, password: `bad-${i}-password` }, 'json', {
          headers: { 'x-forwarded-for': `198.51.100.${i}, 203.0.113.50` },
        });
      status = res.status;
    }
    expect(status).toBe(429);
  });

  it('an address list: the right-most entry that is not a listed proxy', async () => {
    expect(await ipSeen(listed, '198.51.100.1, 203.0.113.9, 10.1.2.3')).toBe('203.0.113.9');
    expect(await ipSeen(listed, '203.0.113.9, 10.1.2.3, 10.1.9.9')).toBe('203.0.113.9');
    expect(await ipSeen(listed, '10.2.0.1, 10.1.2.3')).toBe('10.2.0.1');
  });

  it('configuration: hop counts and address lists parse; "true" and garbage stop start-up', () => {
    const base = { sessionSecret: 'x'.repeat(40), dataDir: '/tmp/citadel-test-data' };
    expect(loadConfig({ ...base, env: {} }).trustProxy).toBe(false);
    expect(loadConfig({ ...base, env: { TRUST_PROXY: '0' } }).trustProxy).toBe(false);
    expect(loadConfig({ ...base, env: { TRUST_PROXY: '2' } }).trustProxy).toBe(2);
    expect(loadConfig({ ...base, env: { TRUST_PROXY: '10.0.0.0/8,::1' } }).trustProxy).toEqual([
      '10.0.0.0/8',
      '::1',
    ]);
    expect(loadConfig({ ...base, env: {}, trustProxy: true }).trustProxy).toBe(1);
    for (const bad of ['true', 'yes', '10.0.0.0/33', '10.0.0.1,', 'example.com', '-1'])
      expect(() => loadConfig({ ...base, env: { TRUST_PROXY: bad } }), bad).toThrow(ConfigError);
  });
});
