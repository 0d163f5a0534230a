import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';
import { specimenApi, specimenMigrations } from '../api/fixtures/specimens.ts';

/** What @fastify/helmet set with Citadel's options (over http), recorded before the precomputed hook. */
const DOCUMENT = {
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
  'x-frame-options': 'DENY',
  'x-permitted-cross-domain-policies': 'none',
  'x-xss-protection': '0',
};

/** A JSON answer's set: what still acts on a response no browser renders as a document. */
const JSON_ANSWER = {
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'cross-origin-resource-policy': 'same-origin',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
};
const DOCUMENT_ONLY = Object.keys(DOCUMENT).filter((name) => !(name in JSON_ANSWER));

describe('security headers, computed once', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      api: specimenApi,
      migrations: specimenMigrations,
    });
  });
  afterAll(async () => t?.close());

  it.each([
    ['a page', '/login', 200, DOCUMENT],
    ['an error page', '/no-such-page', 404, DOCUMENT],
    ['JSON', '/me', 401, JSON_ANSWER],
    ['a JSON 404', '/no-such-page', 404, JSON_ANSWER],
    ['health', '/healthz', 200, JSON_ANSWER],
    ['the resource API', '/api/v1/specimens', 200, JSON_ANSWER],
    ['problem details', '/api/v1/specimens?sort=nope', 400, JSON_ANSWER],
  ])('are the right set on %s', async (_kind, url, status, expected) => {
    const response = await t.app.inject({
      method: 'GET',
      url,
      headers: { accept: expected === DOCUMENT ? 'text/html' : 'application/json' },
    });
    expect(response.statusCode).toBe(status);
    for (const [name, value] of Object.entries(expected)) expect(response.headers[name], name).toBe(value);
    // A JSON answer carries none of the document-only headers.
    if (expected === JSON_ANSWER)
      for (const name of DOCUMENT_ONLY) expect(response.headers[name], name).toBeUndefined();
    expect(response.headers['cross-origin-embedder-policy']).toBeUndefined();
    // RFC 6797 §7.2: no HSTS over plain http (test/security/http-standards.test.ts covers https).
    expect(response.headers['strict-transport-security']).toBeUndefined();
    expect(response.headers['x-powered-by']).toBeUndefined();
  });

  it('an https APP_URL adds upgrade-insecure-requests to the CSP, and HSTS to every answer', async () => {
    const secure = await startTestApp({ appUrl: 'https://auth.example.com' });
    try {
      const page = await secure.app.inject({
        method: 'GET',
        url: '/login',
        headers: { accept: 'text/html' },
      });
      expect(page.headers['content-security-policy']).toBe(
        DOCUMENT['content-security-policy'].replace(
          ";connect-src 'self'",
          ";upgrade-insecure-requests;connect-src 'self'",
        ),
      );
      const json = await secure.app.inject({
        method: 'GET',
        url: '/me',
        headers: { accept: 'application/json' },
      });
      expect(json.headers['content-security-policy']).toBe(JSON_ANSWER['content-security-policy']);
      for (const response of [page, json])
        expect(response.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
    } finally {
      await secure.close();
    }
  });
});
