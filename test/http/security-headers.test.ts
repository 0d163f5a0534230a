import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';

/** What @fastify/helmet set with Citadel's options (over http), recorded before the precomputed hook. */
const EXPECTED = {
  'content-security-policy':
    "default-src 'self';base-uri 'self';font-src 'self' https: data:;form-action 'self';" +
    "frame-ancestors 'none';img-src 'self' data:;object-src 'none';script-src 'self';" +
    "script-src-attr 'none';style-src 'self' 'unsafe-inline';connect-src 'self'",
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'origin-agent-cluster': '?1',
  'referrer-policy': 'same-origin',
  'x-content-type-options': 'nosniff',
  'x-dns-prefetch-control': 'off',
  'x-download-options': 'noopen',
  'x-frame-options': 'SAMEORIGIN',
  'x-permitted-cross-domain-policies': 'none',
  'x-xss-protection': '0',
};

describe('security headers, computed once', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t?.close());

  it.each([
    ['a page', '/login', 200],
    ['JSON', '/me', 401],
    ['a 404', '/no-such-page', 404],
    ['health', '/healthz', 200],
  ])('are the same on %s', async (_kind, url, status) => {
    const response = await t.app.inject({
      method: 'GET',
      url,
      headers: { accept: url === '/login' ? 'text/html' : 'application/json' },
    });
    expect(response.statusCode).toBe(status);
    for (const [name, value] of Object.entries(EXPECTED)) expect(response.headers[name], name).toBe(value);
    expect(response.headers['cross-origin-embedder-policy']).toBeUndefined();
    // RFC 6797 §7.2: no HSTS over plain http (test/security/http-standards.test.ts covers https).
    expect(response.headers['strict-transport-security']).toBeUndefined();
    expect(response.headers['x-powered-by']).toBeUndefined();
  });

  it('an https APP_URL adds upgrade-insecure-requests to the CSP', async () => {
    const secure = await startTestApp({ appUrl: 'https://auth.example.com' });
    try {
      const response = await secure.app.inject({ method: 'GET', url: '/me' });
      expect(response.headers['content-security-policy']).toBe(
        EXPECTED['content-security-policy'].replace(
          ";connect-src 'self'",
          ";upgrade-insecure-requests;connect-src 'self'",
        ),
      );
      expect(response.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
    } finally {
      await secure.close();
    }
  });
});
