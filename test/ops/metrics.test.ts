import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, TEST_PASSWORD, type TestApp } from '../support/app.ts';
import { defaultPlugins } from '../../src/auth/index.ts';
import { loadConfig } from '../../src/config/load.ts';
import { ConfigError } from '../../src/core/errors.ts';

const METRICS_TOKEN = 'metrics-token-0123456789abcdef';

/** The value of one sample line (`name{labels} value`), 0 when the series does not exist yet. */
function sample(text: string, name: string, labels: Record<string, string>): number {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    const match = /^([a-z_]+)\{([^}]*)\} (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const present = match[2]!.split(',');
    if (wanted.every((pair) => present.includes(pair))) return Number(match[3]);
  }
  return 0;
}

describe('GET /metrics', () => {
  let t: TestApp;
  const scrape = async () => {
    const response = await t.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    });
    expect(response.statusCode).toBe(200);
    return response.body;
  };

  beforeAll(async () => {
    t = await startTestApp({
      metricsToken: METRICS_TOKEN,
      plugins: defaultPlugins({ accounts: { loginFailuresPerIdentifierIp: 2 } }),
    });
  });
  afterAll(async () => t?.close());

  it('answers only to the metrics bearer token', async () => {
    for (const authorization of [
      undefined,
      'Bearer wrong-token-0123456789abc',
      METRICS_TOKEN,
      `Bearer ${METRICS_TOKEN}x`,
    ]) {
      const response = await t.app.inject({
        method: 'GET',
        url: '/metrics',
        headers: authorization ? { authorization } : {},
      });
      expect(response.statusCode, String(authorization)).toBe(401);
      expect(response.body).not.toContain('http_requests_total');
    }
    const ok = await t.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `bearer ${METRICS_TOKEN}` },
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  });

  it('counts a request by route template, method and status, with its latency', async () => {
    const labels = { route: '/me', method: 'GET', status: '401' };
    const before = await scrape();
    expect((await t.client().get('/me')).status).toBe(401);
    const after = await scrape();
    expect(sample(after, 'http_requests_total', labels)).toBe(
      sample(before, 'http_requests_total', labels) + 1,
    );
    expect(sample(after, 'http_request_duration_seconds_count', labels)).toBe(
      sample(before, 'http_request_duration_seconds_count', labels) + 1,
    );
    expect(after).toMatch(
      /http_request_duration_seconds_bucket\{le="0\.005",route="\/me",method="GET",status="401"\}/,
    );
  });

  it('labels unmatched paths with one value, not the path', async () => {
    await t.client().get('/no-such-page-12345');
    const text = await scrape();
    expect(text).not.toContain('no-such-page-12345');
    expect(sample(text, 'http_requests_total', { route: '(unmatched)', status: '404' })).toBeGreaterThan(0);
  });

  it('counts sign-ins by method and outcome, and rate-limit refusals', async () => {
    const user = await t.createUser();
    const before = await scrape();
    const client = t.client();
    expect((await client.post('/login', { email: user.email, password: TEST_PASSWORD })).status).toBe(200);
    expect(
      (await t.client().post('/login', { email: user.email, password: 'wrong password 1' })).status,
    ).toBe(401);
    expect(
      (await t.client().post('/login', { email: user.email, password: 'wrong password 2' })).status,
    ).toBe(401);
    expect(
      (await t.client().post('/login', { email: user.email, password: 'wrong password 3' })).status,
    ).toBe(429);
    const after = await scrape();
    const delta = (name: string, labels: Record<string, string>) =>
      sample(after, name, labels) - sample(before, name, labels);
    expect(delta('citadel_sign_ins_total', { method: 'password', outcome: 'success' })).toBe(1);
    expect(delta('citadel_sign_ins_total', { method: 'password', outcome: 'failure' })).toBe(2);
    expect(delta('citadel_sign_ins_total', { method: 'password', outcome: 'rate_limited' })).toBe(1);
    expect(delta('citadel_rate_limit_refusals_total', { route: '/login' })).toBe(1);
  });

  it('reports database pool use and process metrics', async () => {
    const text = await scrape();
    expect(sample(text, 'citadel_db_pool_connections', { state: 'total' })).toBeGreaterThan(0);
    expect(text).toMatch(/^citadel_db_pool_connections\{state="waiting"\} \d+$/m);
    expect(text).toMatch(/^process_resident_memory_bytes \d+/m);
  });
});

describe('without METRICS_TOKEN', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t?.close());

  it('there is no /metrics', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/metrics' });
    expect(response.statusCode).toBe(404);
  });

  it('a METRICS_TOKEN shorter than 16 characters stops start-up', () => {
    expect(() => loadConfig({ env: { METRICS_TOKEN: 'short' }, sessionSecret: 'x'.repeat(40) })).toThrow(
      ConfigError,
    );
    expect(
      loadConfig({ env: { METRICS_TOKEN: METRICS_TOKEN }, sessionSecret: 'x'.repeat(40) }).metricsToken,
    ).toBe(METRICS_TOKEN);
  });
});
