// Dialect-independent: the client alone, against a fetch spy; `npm test` runs it with the first database only.
// citadel/client never sends a path parameter that is empty, `.` or `..`: a URL resolver would
// drop the segment and reach another endpoint (DELETE /organizations/7/members/.. is
// DELETE /organizations/7/ once resolved). The call resolves to `{ data: null, error }` with
// status 0, without a request.
import { describe, expect, it } from 'vitest';
import { createClient } from '../../src/client/index.ts';

const ROUTES = [
  { method: 'GET', path: '/organizations' },
  { method: 'GET', path: '/organizations/:id' },
  { method: 'DELETE', path: '/organizations/:id' },
  { method: 'PATCH', path: '/organizations/:id/members/:userId' },
  { method: 'DELETE', path: '/organizations/:id/members/:userId' },
  { method: 'GET', path: '/tokens' },
  { method: 'DELETE', path: '/tokens/:id' },
];

/** A fetch that answers GET /endpoints and records every other request. */
function spy() {
  const sent: string[] = [];
  const fetch = async (input: Parameters<typeof globalThis.fetch>[0], init?: RequestInit) => {
    const url = new URL(String(input));
    if (url.pathname === '/endpoints')
      return Response.json({ status: 'success', data: { endpoints: ROUTES, api: '/api' } });
    sent.push(`${init?.method ?? 'GET'} ${url.pathname}`);
    return Response.json({ status: 'success' });
  };
  return { fetch, sent };
}

const UNSAFE = ['', '.', '..', undefined, null];

describe('citadel/client path parameters', () => {
  it('auth endpoints: an empty, "." or ".." parameter is refused without a request', async () => {
    const { fetch, sent } = spy();
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- untyped: the routes above are this test's own
    const client = createClient({ baseUrl: 'http://citadel.test', fetch }) as any;
    for (const value of UNSAFE) {
      const member = await client.auth.organizations.members.delete({ id: 7, userId: value });
      expect(member).toEqual({
        data: null,
        error: {
          status: 0,
          message: expect.stringContaining('"userId"'),
          errors: { userId: 'must not be empty, "." or ".."' },
        },
      });
      expect(
        (await client.auth.organizations.members.update({ id: value, userId: 3, role: 'x' })).error,
      ).toMatchObject({ status: 0, errors: { id: expect.any(String) } });
      expect((await client.auth.organizations.delete({ id: value })).error?.status).toBe(0);
      expect((await client.auth.tokens.delete({ id: value })).error?.status).toBe(0);
    }
    expect(sent).toEqual([]);
    // Ordinary values go out, encoded ("..." and "a/.." are not dot segments once encoded).
    await client.auth.organizations.members.delete({ id: 7, userId: 3 });
    await client.auth.organizations.members.delete({ id: 7, userId: '...' });
    await client.auth.organizations.members.delete({ id: 7, userId: 'a/..' });
    expect(sent).toEqual([
      'DELETE /organizations/7/members/3',
      'DELETE /organizations/7/members/...',
      'DELETE /organizations/7/members/a%2F..',
    ]);
  });

  it('resource calls: an empty, "." or ".." id is refused without any request', async () => {
    const { fetch, sent } = spy();
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- untyped resource names
    const client = createClient({ baseUrl: 'http://citadel.test', apiBaseUrl: '/api', fetch }) as any;
    let calls = 0;
    const counting = createClient({
      baseUrl: 'http://citadel.test',
      apiBaseUrl: '/api',
      fetch: (...args: Parameters<typeof fetch>) => {
        calls += 1;
        return fetch(...args);
      },
    }) as typeof client;
    for (const id of UNSAFE.filter((value) => value !== undefined)) {
      for (const result of [
        await client.api.v1.posts.get(id),
        await client.api.v1.posts.update(id, { title: 'x' }),
        await client.api.v1.posts.replace(id, { title: 'x' }),
        await client.api.v1.posts.delete(id),
        await counting.api.v1.posts.delete(id),
      ])
        expect(result).toEqual({
          data: null,
          error: { status: 0, message: expect.any(String), errors: { id: expect.any(String) } },
        });
    }
    expect((await client.api['..'].posts.list()).error?.status).toBe(0);
    expect(sent).toEqual([]);
    expect(calls).toBe(0);
    await client.api.v1.posts.get('abc');
    expect(sent).toEqual(['GET /api/v1/posts/abc']);
  });
});
