/**
 * Dynamic client registration (RFC 7591) over real HTTP, with the bodies real MCP clients send:
 * 201 with `client_id` and `client_id_issued_at`, public clients only, an omitted scope gets the
 * supported scopes, RFC 7591 errors, open CORS, no form CSRF, a limit per client address that
 * holds under parallel requests (429 with Retry-After) and that a forwarded header does not move;
 * off unless `dynamicRegistration` is on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../../support/app.ts';
import { getClient, redirectUriMatches } from '../../../src/auth/oauth-provider/clients.ts';
import { startOAuthApp } from './clients-fixture.ts';

const LIMIT = 4;

async function listen(t: TestApp): Promise<string> {
  const address = await t.app.listen({ host: '127.0.0.1', port: 0 });
  return address.replace('localhost', '127.0.0.1');
}

describe('POST /oauth2/register', () => {
  let t: TestApp;
  let base: string;

  beforeAll(async () => {
    t = await startOAuthApp({ registrationLimit: { max: 1000, windowSeconds: 3600 } });
    base = await listen(t);
  });
  afterAll(async () => t?.close());

  function register(body: unknown, headers: Record<string, string> = {}) {
    return fetch(`${base}/oauth2/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  }

  it('the metadata advertise it at the configured issuer, whatever forwarded headers say', async () => {
    for (const path of ['/.well-known/openid-configuration', '/.well-known/oauth-authorization-server']) {
      const response = await fetch(`${base}${path}`, {
        headers: {
          'x-forwarded-host': 'evil.example',
          'x-forwarded-proto': 'https',
          forwarded: 'host=evil.example;proto=https',
        },
      });
      const metadata = (await response.json()) as Record<string, unknown>;
      expect(metadata.registration_endpoint).toBe('http://localhost:3000/oauth2/register');
      expect(metadata.issuer).toBe('http://localhost:3000');
    }
  });

  it('a Copilot-CLI-like body: no scope, auth method none, native, a loopback redirect; then any port matches', async () => {
    const response = await register({
      client_name: 'GitHub Copilot CLI',
      redirect_uris: ['http://127.0.0.1:53682/callback'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      application_type: 'native',
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('cache-control')).toContain('no-store');
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toEqual({
      client_id: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
      client_id_issued_at: expect.any(Number),
      client_name: 'GitHub Copilot CLI',
      redirect_uris: ['http://127.0.0.1:53682/callback'],
      post_logout_redirect_uris: [],
      application_type: 'native',
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      scope: expect.any(String),
      id_token_signed_response_alg: 'RS256',
    });
    expect(body).not.toHaveProperty('client_secret');
    expect(Math.abs((body.client_id_issued_at as number) - Date.now() / 1000)).toBeLessThan(60);
    // The default scopes: every supported one (the OpenID ones and the blog-less app's none).
    expect((body.scope as string).split(' ')).toEqual(
      expect.arrayContaining(['openid', 'profile', 'email', 'offline_access']),
    );
    const client = (await getClient(t.services.db, body.client_id as string))!;
    expect(client.registration).toBe('dynamic');
    expect(client.client_secret_hash).toBeNull();
    // The CLI listens on a new random port each run.
    expect(redirectUriMatches(client, 'http://127.0.0.1:40404/callback')).toBe(true);
    expect(redirectUriMatches(client, 'http://127.0.0.1:40404/other')).toBe(false);
  });

  it('an MCP-SDK-like body (localhost redirect, no application_type) is a native public client', async () => {
    const response = await register({
      redirect_uris: ['http://localhost:6274/oauth/callback'],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      client_name: 'MCP Inspector',
      client_uri: 'https://github.com/modelcontextprotocol/inspector',
    });
    expect(response.status).toBe(201);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body.application_type).toBe('native');
    expect(body).not.toHaveProperty('client_uri');
  });

  it('asking for a secret gets a public client: token_endpoint_auth_method none, no secret', async () => {
    const response = await register({
      redirect_uris: ['https://app.example.com/cb'],
      token_endpoint_auth_method: 'client_secret_basic',
      scope: 'openid email',
    });
    expect(response.status).toBe(201);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body.token_endpoint_auth_method).toBe('none');
    expect(body.scope).toBe('openid email');
    expect(body).not.toHaveProperty('client_secret');
    expect(body).not.toHaveProperty('client_secret_expires_at');
  });

  it.each([
    [{}, 'invalid_redirect_uri'],
    [{ redirect_uris: [] }, 'invalid_redirect_uri'],
    [{ redirect_uris: ['http://app.example.com/cb'] }, 'invalid_redirect_uri'],
    [{ redirect_uris: ['https://app.example.com/cb#f'] }, 'invalid_redirect_uri'],
    [{ redirect_uris: ['javascript:alert(1)'] }, 'invalid_redirect_uri'],
    [{ redirect_uris: 'https://app.example.com/cb' }, 'invalid_redirect_uri'],
    [{ redirect_uris: ['https://app.example.com/cb'], scope: 'openid *' }, 'invalid_client_metadata'],
    [
      { redirect_uris: ['https://app.example.com/cb'], grant_types: ['client_credentials'] },
      'invalid_client_metadata',
    ],
    [{ redirect_uris: ['https://app.example.com/cb'], grant_types: ['implicit'] }, 'invalid_client_metadata'],
    [{ redirect_uris: ['https://app.example.com/cb'], response_types: ['token'] }, 'invalid_client_metadata'],
    [{ redirect_uris: ['https://app.example.com/cb'], client_name: 42 }, 'invalid_client_metadata'],
    [{ redirect_uris: ['https://app.example.com/cb'], application_type: 'tv' }, 'invalid_client_metadata'],
  ])('%j: 400 %s', async (body, error) => {
    const before = (await t.services.db.selectFrom('oauth_clients').select('id').execute()).length;
    const response = await register(body);
    expect(response.status).toBe(400);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    const answer = (await response.json()) as Record<string, unknown>;
    expect(Object.keys(answer).sort()).toEqual(['error', 'error_description']);
    expect(answer.error).toBe(error);
    expect(answer.error_description).toEqual(expect.any(String));
    expect((await t.services.db.selectFrom('oauth_clients').select('id').execute()).length).toBe(before);
  });

  it('an unreadable body is a 400, not a 500', async () => {
    const response = await register('{"redirect_uris": [');
    expect(response.status).toBe(400);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('prototype keys in the body are refused (422, as on every endpoint) and change nothing', async () => {
    const before = (await t.services.db.selectFrom('oauth_clients').select('id').execute()).length;
    const response = await register(
      '{"redirect_uris":["https://app.example.com/cb"],"__proto__":{"registration":"admin"},"constructor":{"prototype":{"x":1}}}',
    );
    expect(response.status).toBe(422);
    expect((await t.services.db.selectFrom('oauth_clients').select('id').execute()).length).toBe(before);
    expect(({} as Record<string, unknown>).registration).toBeUndefined();
  });

  it('CORS: a preflight from any origin is answered; a cross-site POST is served, every answer readable', async () => {
    const preflight = await fetch(`${base}/oauth2/register`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://mcp-client.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type, mcp-protocol-version',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');
    expect(preflight.headers.get('access-control-allow-headers')).toBe('content-type, mcp-protocol-version');
    expect(preflight.headers.get('access-control-allow-credentials')).toBeNull();
    const hostile = await fetch(`${base}/oauth2/register`, {
      method: 'OPTIONS',
      headers: { 'access-control-request-headers': 'content-type; <script>' },
    });
    expect(hostile.headers.get('access-control-allow-headers')).toBe('Authorization, Content-Type');

    // A browser with a session, a form page and a reserved query key: a refusal page, not a 500.
    const user = await t.createUser();
    const session = await t.signIn(user);
    const refusedPreflight = await fetch(`${base}/oauth2/register?prototype[x]=1`, {
      method: 'OPTIONS',
      headers: {
        accept: 'text/html',
        cookie: [...session.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
        'content-type': 'multipart/form-data; boundary=x',
      },
      body: '--x--\r\n',
    });
    expect(refusedPreflight.status).toBe(422);

    const crossSite = await register(
      { redirect_uris: ['https://app.example.com/cb'] },
      { origin: 'https://mcp-client.example', 'sec-fetch-site': 'cross-site' },
    );
    expect(crossSite.status).toBe(201);
    expect(crossSite.headers.get('access-control-allow-origin')).toBe('*');
    const refused = await register(
      {},
      { origin: 'https://mcp-client.example', 'sec-fetch-site': 'cross-site' },
    );
    expect(refused.status).toBe(400);
    expect(refused.headers.get('access-control-allow-origin')).toBe('*');
    // Other endpoints still refuse a cross-site request.
    const login = await fetch(`${base}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'sec-fetch-site': 'cross-site' },
      body: '{}',
    });
    expect(login.status).toBe(403);
    expect(login.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('JSON only; no form CSRF token needed, and a session plays no part', async () => {
    const form = await fetch(`${base}/oauth2/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'redirect_uris=https%3A%2F%2Fapp.example.com%2Fcb',
    });
    expect(form.status).toBe(415);
    const user = await t.createUser();
    const session = await t.signIn(user);
    const cookie = [...session.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const signedIn = await register({ redirect_uris: ['https://app.example.com/cb'] }, { cookie });
    expect(signedIn.status).toBe(201);
  });
});

describe('registration limit', () => {
  let t: TestApp;
  let base: string;

  beforeAll(async () => {
    t = await startOAuthApp({ registrationLimit: { max: LIMIT, windowSeconds: 3600 } });
    base = await listen(t);
  });
  afterAll(async () => t?.close());

  it(`parallel registrations from one address: exactly ${LIMIT} succeed, the rest 429 with Retry-After, forwarded headers or not`, async () => {
    const responses = await Promise.all(
      Array.from({ length: LIMIT * 3 }, (_, i) =>
        fetch(`${base}/oauth2/register`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            // A client cannot pose as many addresses: the server trusts no forwarded header here.
            'x-forwarded-for': `203.0.113.${i + 1}`,
            'x-real-ip': `198.51.100.${i + 1}`,
          },
          body: JSON.stringify({ redirect_uris: [`http://127.0.0.1/cb${i}`] }),
        }),
      ),
    );
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses.filter((status) => status === 201)).toHaveLength(LIMIT);
    expect(statuses.filter((status) => status === 429)).toHaveLength(LIMIT * 2);
    for (const response of responses.filter((r) => r.status === 429)) {
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      const retryAfter = Number(response.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(3600);
    }
    const stored = await t.services.db
      .selectFrom('oauth_clients')
      .select('id')
      .where('registration', '=', 'dynamic')
      .execute();
    expect(stored).toHaveLength(LIMIT);
    // Invalid bodies count too: a refused request is no way around the limit.
    const more = await fetch(`${base}/oauth2/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(more.status).toBe(429);
  });

  it('the window ends: registrations are accepted again', async () => {
    t.clock.advance(3601);
    const response = await fetch(`${base}/oauth2/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: ['https://app.example.com/cb'] }),
    });
    expect(response.status).toBe(201);
  });
});

describe('without dynamicRegistration', () => {
  it('POST /oauth2/register is not served', async () => {
    const t = await startOAuthApp({ dynamicRegistration: false });
    try {
      const response = await t
        .client()
        .post('/oauth2/register', { redirect_uris: ['https://a.example.com/cb'] });
      expect(response.status).toBe(404);
      expect(await t.services.db.selectFrom('oauth_clients').select('id').execute()).toEqual([]);
      const metadata = (await t.client().get('/.well-known/openid-configuration')).body;
      expect(metadata.issuer).toBe('http://localhost:3000');
      expect(metadata).not.toHaveProperty('registration_endpoint');
    } finally {
      await t.close();
    }
  });
});
