/**
 * Issue 20 item 7: a request whose request line or headers are too long reaches an answer that
 * Citadel decides or shapes, never Node's or Fastify's bare one. Over a real TCP socket (inject
 * skips Node's HTTP parser): a URL up to 32 KiB is read (a 23,160-character list URL of nested
 * filters gets the resource API's published 400), a longer one is Citadel's 414 with the envelope
 * or problem details, and a head over 64 KiB (or a malformed request line) gets the security
 * headers and a problem-details body from the server's client-error handler.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBlogApp, type BlogApp } from '../support/api-app.ts';
import { MAX_REQUEST_HEAD_BYTES, MAX_URL_LENGTH } from '../../src/http/request/request-head.ts';

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Send bytes as they are and read the answer until the server closes the connection. */
function rawRequest(port: number, request: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', (error) => (chunks.length > 0 ? finish() : reject(error)));
    socket.on('end', finish);
    socket.write(request);
    let done = false;
    function finish() {
      if (done) return;
      done = true;
      socket.destroy();
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      const [statusLine, ...lines] = text.slice(0, split).split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({ status: Number(statusLine!.split(' ')[1]), headers, body: text.slice(split + 4) });
    }
  });
}

function get(port: number, url: string, headers: Record<string, string> = {}): Promise<RawResponse> {
  const lines = Object.entries({ host: '127.0.0.1', connection: 'close', ...headers }).map(
    ([name, value]) => `${name}: ${value}`,
  );
  return rawRequest(port, `GET ${url} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`);
}

/**
 * The security headers every Citadel answer carries (no HSTS over http): helmet's set on a page,
 * the JSON set on a JSON answer (test/http/security-headers.test.ts has both in full).
 */
function expectSecurityHeaders(response: RawResponse, where: string) {
  expect(response.headers['x-content-type-options'], where).toBe('nosniff');
  expect(response.headers['content-security-policy'], where).toContain("frame-ancestors 'none'");
  expect(response.headers['cross-origin-resource-policy'], where).toBe('same-origin');
  if (String(response.headers['content-type']).startsWith('text/html')) {
    expect(response.headers['content-security-policy'], where).toContain("default-src 'self'");
    expect(response.headers['x-frame-options'], where).toBe('DENY');
    expect(response.headers['referrer-policy'], where).toBe('same-origin');
    expect(response.headers['cross-origin-opener-policy'], where).toBe('same-origin');
  } else {
    expect(response.headers['content-type'], where).toMatch(/^application\/(problem\+)?json/);
    expect(response.headers['content-security-policy'], where).toBe(
      "default-src 'none'; frame-ancestors 'none'",
    );
    expect(response.headers['x-frame-options'], where).toBe('DENY');
  }
}

/** A list URL of exactly `length` characters: nested `or`/`and` groups of status filters. */
function nestedFilterUrl(length: number): string {
  let url = '/api/v1/posts?';
  for (let i = 0; url.length < length - 100; i += 1)
    url += `filter[or][${i}][and][0][or][0][status][eq]=published${i}&`;
  url += 'search=';
  return url + 'x'.repeat(length - url.length);
}

describe('request lines and headers beyond the limits, over TCP', () => {
  let t: BlogApp;
  let port: number;
  const lines: string[] = [];

  beforeAll(async () => {
    t = await startBlogApp({
      logger: undefined,
      logLevel: 'trace',
      logStream: { write: (line: string) => void lines.push(line) },
    });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as { port: number }).port;
  });
  afterAll(async () => t?.close());

  it('a 23,160-character nested-filter list URL gets the published answer: 400 naming the 31st condition', async () => {
    const url = nestedFilterUrl(23_160);
    expect(url.length).toBe(23_160);
    const response = await get(port, url, { accept: 'application/json' });
    expect(response.status).toBe(400);
    expect(response.headers['content-type']).toContain('application/problem+json');
    expectSecurityHeaders(response, 'nested filters');
    const problem = JSON.parse(response.body);
    expect(problem).toMatchObject({ status: 400, title: 'Bad Request' });
    // docs/resource-api.md: at most 30 conditions; the 31st is named.
    expect(problem.invalid_params).toEqual([
      { name: 'filter[or][30][and][0][or][0][status][eq]', reason: expect.stringContaining('30 conditions') },
    ]);
  });

  it('a 20 KB URL is read like any other: a list filtered by 100 long values', async () => {
    const values = Array.from({ length: 100 }, (_, i) => `${'v'.repeat(190)}${i}`).join(',');
    const url = `/api/v1/posts?filter[status][in]=${values}`;
    expect(url.length).toBeGreaterThan(19_000);
    const response = await get(port, url);
    expect(response.status, response.body).toBe(200);
    expect(JSON.parse(response.body).data).toEqual([]);
    expectSecurityHeaders(response, '20 KB list');
  });

  it("a 40 KB URL is Citadel's 414: problem details on the API, the envelope and the error page on auth routes", async () => {
    const padding = 'p'.repeat(40_000);
    const api = await get(port, `/api/v1/posts?search=${padding}`);
    expect(api.status).toBe(414);
    expect(api.headers['content-type']).toContain('application/problem+json');
    expect(JSON.parse(api.body)).toMatchObject({
      status: 414,
      title: 'URI Too Long',
      instance: '/api/v1/posts',
    });
    expectSecurityHeaders(api, 'API 414');

    const json = await get(port, `/login?next=${padding}`, { accept: 'application/json' });
    expect(json.status).toBe(414);
    expect(JSON.parse(json.body)).toEqual({
      action: 'login.show',
      status: 'error',
      statusCode: 414,
      message: `The request URL is too long (at most ${MAX_URL_LENGTH.toLocaleString('en')} characters).`,
    });
    expectSecurityHeaders(json, 'auth 414');

    const form = await get(port, `/login?next=${padding}`, { accept: 'text/html' });
    expect(form.status).toBe(414);
    expect(form.body).toContain('<!doctype html>');
    expectSecurityHeaders(form, 'form 414');

    for (const path of ['/healthz', '/no/such/path', '/api/v1/nothing-here']) {
      const other = await get(port, `${path}?x=${padding}`, { accept: 'text/html' });
      expect(other.status, path).toBe(414);
      expectSecurityHeaders(other, path);
    }
  });

  it('a long path parameter reaches its route: an unknown id, answered as any unknown id is', async () => {
    const long = 'a'.repeat(5000);
    const api = await get(port, `/api/v1/posts/${long}`, { accept: 'application/json' });
    expect(api.status).toBe(404);
    expect(api.headers['content-type']).toContain('application/problem+json');
    expectSecurityHeaders(api, 'API long id');
    const auth = await get(port, `/organizations/${long}/members/select%20*%20from%20users/remove`, {
      accept: 'application/json',
    });
    expect(auth.status).toBeLessThan(500);
    expect(auth.body).not.toContain(long);
    expect(auth.body).not.toContain('select * from');
    expectSecurityHeaders(auth, 'auth long id');
  });

  it("the router's refusals (a path that does not decode, a parameter over the URL limit) are problem details that name no part of the URL", async () => {
    const badEncoding = await get(port, '/api/v1/posts/%E0%A4%A-secret-part', { accept: 'application/json' });
    const tooLong = await get(port, `/api/v1/posts/${'s3cret'.repeat(6000)}`, { accept: 'application/json' });
    for (const [response, status, detail] of [
      [badEncoding, 400, 'The request could not be read.'],
      [
        tooLong,
        414,
        `The request URL is too long (at most ${MAX_URL_LENGTH.toLocaleString('en')} characters).`,
      ],
    ] as const) {
      expect(response.status).toBe(status);
      expectSecurityHeaders(response, String(status));
      expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      expect(response.headers['cache-control']).toBe('no-store');
      expect(JSON.parse(response.body)).toEqual({
        type: 'about:blank',
        title: status === 400 ? 'Bad Request' : 'URI Too Long',
        status,
        detail,
      });
    }
    expect((await get(port, '/healthz')).status).toBe(200);
  });

  it('a head over 64 KiB (a huge header, or a URL past the head limit) is 431 with the headers and a problem body', async () => {
    for (const response of [
      await get(port, '/me', { 'x-filler': 'h'.repeat(100_000), accept: 'application/json' }),
      await get(port, `/api/v1/posts?search=${'u'.repeat(MAX_REQUEST_HEAD_BYTES + 1000)}`),
    ]) {
      expect(response.status).toBe(431);
      expectSecurityHeaders(response, '431');
      expect(response.headers['content-type']).toBe('application/problem+json');
      expect(response.headers['cache-control']).toBe('no-store');
      expect(Number(response.headers['content-length'])).toBe(Buffer.byteLength(response.body));
      expect(JSON.parse(response.body)).toEqual({
        type: 'about:blank',
        title: 'Request Header Fields Too Large',
        status: 431,
        detail: 'The request line and headers are too large (at most 64 KiB).',
      });
    }
  });

  it('a request Node cannot parse is a 400 with the headers and a problem body, and the server keeps serving', async () => {
    const response = await rawRequest(port, 'GET /me HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n');
    expect(response.status).toBe(400);
    expectSecurityHeaders(response, 'malformed');
    expect(JSON.parse(response.body)).toMatchObject({ status: 400, title: 'Bad Request' });
    expect((await get(port, '/healthz')).status).toBe(200);
  });

  it("the parser's refusal is logged by its code only: no raw request bytes (URL, cookie)", async () => {
    lines.length = 0;
    const token = 'tok3n'.repeat(8);
    const session = 'sess10n'.repeat(8);
    const response = await get(port, `/magic-link/verify/${token}`, {
      cookie: `citadel_session=${session}`,
      'x-filler': 'h'.repeat(100_000),
    });
    expect(response.status).toBe(431);
    const log = lines.join('\n');
    expect(log).toContain('request refused by the HTTP parser');
    expect(log).toContain('HPE_HEADER_OVERFLOW');
    expect(log).not.toContain('rawPacket');
    expect(log).not.toContain(token);
    expect(log).not.toContain(session);
  });
});
