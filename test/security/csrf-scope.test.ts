/**
 * Issue 13, item 11: only POST with a form, multipart or text/plain body (or none) needs `_csrf`;
 * PUT, PATCH and DELETE are safe by construction; Sec-Fetch-Site: cross-site is refused for every
 * unsafe method.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';
import { sudoWithPassword } from '../support/factors.ts';

describe('CSRF scope and Fetch Metadata', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t?.close());

  async function tokenId(): Promise<{ client: Awaited<ReturnType<TestApp['signIn']>>; id: string }> {
    const client = await t.signIn(await t.createUser());
    await sudoWithPassword(client);
    const created = await client.post('/tokens', { name: 'ci', abilities: ['posts:read'] });
    expect(created.status, created.text).toBeLessThan(300);
    return { client, id: String(created.body.token_id) };
  }

  it('a bodiless DELETE with the session cookie and no token revokes (a REST client, fetch with credentials)', async () => {
    const { client, id } = await tokenId();
    const cookie = [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await t.app.inject({ method: 'DELETE', url: `/tokens/${id}`, headers: { cookie } });
    expect(res.statusCode).not.toBe(403);
    expect(res.statusCode).toBeLessThan(400);
    expect((await client.get('/tokens')).body.tokens).toEqual([]);
  });

  it('Sec-Fetch-Site: cross-site is refused on every unsafe method, with or without a token', async () => {
    const { client, id } = await tokenId();
    const cookie = [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const del = await t.app.inject({
      method: 'DELETE',
      url: `/tokens/${id}`,
      headers: { cookie, 'sec-fetch-site': 'cross-site' },
    });
    expect(del.statusCode).toBe(403);
    expect((await client.get('/tokens')).body.tokens).toHaveLength(1);
    const json = await t.app.inject({
      method: 'POST',
      url: '/logout',
      headers: { cookie, 'sec-fetch-site': 'cross-site', 'content-type': 'application/json' },
      payload: '{}',
    });
    expect(json.statusCode).toBe(403);
    expect((await client.get('/me')).status).toBe(200);
    // Same-origin and same-site requests are fine.
    const same = await t.app.inject({
      method: 'DELETE',
      url: `/tokens/${id}`,
      headers: { cookie, 'sec-fetch-site': 'same-origin' },
    });
    expect(same.statusCode).toBeLessThan(400);
    expect((await client.get('/tokens')).body.tokens).toEqual([]);
  });

  it('POST with a form, text/plain or no body still needs the token', async () => {
    const client = await t.signIn(await t.createUser());
    const cookie = [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    for (const [type, payload] of [
      ['application/x-www-form-urlencoded', 'a=1'],
      ['text/plain', 'a=1'],
      [undefined, undefined],
    ] as const) {
      const headers: Record<string, string> = { cookie };
      if (type) headers['content-type'] = type;
      const res = await t.app.inject({ method: 'POST', url: '/logout', headers, payload });
      expect(res.statusCode, String(type)).toBe(403);
    }
    expect((await client.get('/me')).status).toBe(200);
  });
});
