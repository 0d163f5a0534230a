import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserRecord } from '../../src/auth/core/users.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { insertPosts, startBlogApp, type BlogApp } from '../support/api-app.ts';

/**
 * Issue 13 item 14 (RFC 9110, RFC 6750, RFC 6797): WWW-Authenticate on every 401 and
 * insufficient_scope on a 403, 405 with Allow for a known path, OPTIONS 204 with Allow, RFC 9110
 * titles, no HSTS over plain http, and Cache-Control on answers that depend on the caller.
 */
describe('HTTP standards on the auth routes and the resource API', () => {
  let t: BlogApp;
  let alice: UserRecord;
  let postId: string;
  beforeAll(async () => {
    t = await startBlogApp();
    alice = await t.createUser({ username: 'alice standards' });
    await insertPosts(t, alice, [{ title: 'Public post', status: 'published' }]);
    const list = await t.client().get('/api/v1/posts');
    postId = list.body.data[0].id;
  });
  afterAll(async () => t?.close());

  const token = async (abilities: string[]) =>
    (await t.services.tokens.issue({ userId: alice.id, name: 'std', abilities, expiresAt: null })).token;

  describe('WWW-Authenticate (RFC 9110 §15.5.2, RFC 6750 §3)', () => {
    it('a 401 without credentials names the Bearer scheme, with no error code', async () => {
      for (const response of [
        await t.client().get('/me'),
        await t.client().post('/login', { email: alice.email, password: 'wrong password!' }),
        await t.client().post('/api/v1/posts', { title: 'x', body: 'y' }),
      ]) {
        expect(response.status).toBe(401);
        // The resource API also names its OAuth protected resource metadata (the demo's provider).
        expect(response.headers['www-authenticate']).toMatch(
          /^Bearer(?: resource_metadata="http:\/\/localhost:3000\/\.well-known\/oauth-protected-resource")?$/,
        );
      }
    });

    it('a bad bearer token is a 401 with error="invalid_token", on auth routes and the API', async () => {
      for (const response of [
        await t.client().get('/me', 'json', { token: 'citadel_pat_nope' }),
        await t
          .client()
          .post('/api/v1/posts', { title: 'x', body: 'y' }, 'json', { token: 'citadel_pat_nope' }),
        await t.client().get('/me', 'json', { headers: { authorization: 'Basic Zm9vOmJhcg==' } }),
      ]) {
        expect(response.status).toBe(401);
        expect(response.headers['www-authenticate']).toMatch(
          /^Bearer error="invalid_token"(?:, resource_metadata="http:\/\/localhost:3000\/\.well-known\/oauth-protected-resource")?$/,
        );
      }
    });

    it('a token without the ability is a 403 with error="insufficient_scope" naming it', async () => {
      const readOnly = await token(['posts:read']);
      const api = await t
        .client()
        .post('/api/v1/posts', { title: 'x', body: 'y' }, 'json', { token: readOnly });
      expect(api.status).toBe(403);
      expect(api.headers['www-authenticate']).toBe('Bearer error="insufficient_scope", scope="posts:create"');
      const auth = await t.client().get('/tokens', 'json', { token: readOnly });
      expect(auth.status).toBe(403);
      expect(auth.headers['www-authenticate']).toMatch(
        /^Bearer error="insufficient_scope", scope="[a-z_:*]+"$/,
      );
    });
  });

  describe('405 with Allow and OPTIONS (RFC 9110 §15.5.6, §9.3.7)', () => {
    it('a known auth path with another method is a 405 with Allow, not a 404', async () => {
      const response = await t.client().delete('/login');
      expect(response.status).toBe(405);
      expect(response.headers.allow).toBe('GET, HEAD, POST, OPTIONS');
      expect(response.body).toMatchObject({ status: 'error', statusCode: 405 });
      const me = await t.client().put('/me', {});
      expect(me.status).toBe(405);
      expect(me.headers.allow).toBe('GET, HEAD, OPTIONS');
    });

    it('a known API path with another method is a 405 problem with Allow', async () => {
      const response = await t.client().delete('/api/v1/posts');
      expect(response.status).toBe(405);
      expect(response.headers.allow).toBe('GET, HEAD, POST, OPTIONS');
      expect(response.headers['content-type']).toContain('application/problem+json');
      expect(response.body).toMatchObject({ title: 'Method Not Allowed', status: 405 });
      const item = await t.client().post(`/api/v1/posts/${postId}`, {});
      expect(item.status).toBe(405);
      expect(item.headers.allow).toBe('GET, HEAD, PUT, PATCH, DELETE, OPTIONS');
    });

    it('OPTIONS on a known path is a 204 with Allow and no body; an unknown path stays 404', async () => {
      for (const [path, allow] of [
        ['/login', 'GET, HEAD, POST, OPTIONS'],
        ['/api/v1/posts', 'GET, HEAD, POST, OPTIONS'],
        [`/api/v1/posts/${postId}`, 'GET, HEAD, PUT, PATCH, DELETE, OPTIONS'],
      ] as const) {
        const response = await t.client().request('OPTIONS', path, 'json');
        expect(response.status, path).toBe(204);
        expect(response.headers.allow, path).toBe(allow);
        expect(response.text).toBe('');
      }
      expect((await t.client().request('OPTIONS', '/no-such-page', 'json')).status).toBe(404);
      expect((await t.client().delete('/no-such-page')).status).toBe(404);
      expect((await t.client().delete('/api/v1/nothing-here')).status).toBe(404);
    });
  });

  it('problem titles use RFC 9110 phrases', async () => {
    const tooLarge = await t.client().request('POST', '/api/v1/posts', 'json', undefined, {
      token: await token(['*']),
      headers: { 'content-type': 'application/json' },
    });
    // An empty body is an empty object: 422 with "Unprocessable Content", not "Unprocessable Entity".
    expect(tooLarge.status).toBe(422);
    expect(tooLarge.body.title).toBe('Unprocessable Content');
  });

  describe('Cache-Control', () => {
    it('auth answers and pages are private, no-store', async () => {
      const session = await t.signIn(alice);
      expect((await session.get('/me')).headers['cache-control']).toBe('private, no-store');
      expect((await session.get('/account', 'form')).headers['cache-control']).toBe('private, no-store');
      expect((await t.client().get('/login', 'form')).headers['cache-control']).toBe('private, no-store');
    });

    it('API answers to a caller with credentials are private, no-store; anonymous ones vary on them', async () => {
      const session = await t.signIn(alice);
      const bearer = await token(['*']);
      for (const response of [
        await session.get('/api/v1/posts'),
        await t.client().get('/api/v1/posts', 'json', { token: bearer }),
        await t.client().get(`/api/v1/posts/${postId}`, 'json', { token: bearer }),
      ]) {
        expect(response.status).toBe(200);
        expect(response.headers['cache-control']).toBe('private, no-store');
      }
      const anonymous = await t.client().get('/api/v1/posts');
      expect(anonymous.status).toBe(200);
      expect(anonymous.headers['cache-control']).toBeUndefined();
      expect(anonymous.headers.vary).toBe('Cookie, Authorization');
    });
  });

  it('sends no Strict-Transport-Security over plain http (RFC 6797 §7.2)', async () => {
    const response = await t.client().get('/login', 'form');
    expect(response.status).toBe(200);
    expect(response.headers['strict-transport-security']).toBeUndefined();
  });
});

describe('HSTS with an https APP_URL', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ appUrl: 'https://auth.example.com' });
  });
  afterAll(async () => t?.close());

  it('sends Strict-Transport-Security', async () => {
    const response = await t.client().get('/healthz', 'json');
    expect(response.headers['strict-transport-security']).toMatch(/^max-age=\d+/);
  });
});
