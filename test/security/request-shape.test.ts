/**
 * Issue 13, item 8: deeply nested JSON is refused with 400 before any recursive walk, and a write
 * request creates or changes at most 1,000 rows across all its levels (413 above, nothing written).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestClient } from '../support/client.ts';
import { countRows, startBlogApp, type BlogApp } from '../support/api-app.ts';
import { MAX_JSON_DEPTH, MAX_ROWS_PER_WRITE, measurePayload } from '../../src/api/request/request-limits.ts';

describe('request shape limits on the resource API', () => {
  let t: BlogApp;
  let session: TestClient;
  beforeAll(async () => {
    t = await startBlogApp();
    session = await t.signIn(await t.createUser());
  });
  afterAll(async () => t?.close());

  function raw(method: 'POST' | 'PUT' | 'PATCH', url: string, payload: string) {
    const cookie = [...session.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    return t.app.inject({ method, url, payload, headers: { cookie, 'content-type': 'application/json' } });
  }

  it('a body nested 5,000 levels deep is a 400 problem naming the limit, on every write route', async () => {
    const deep = `{"title":"x","body":${'['.repeat(5000)}${']'.repeat(5000)}}`;
    for (const [method, url] of [
      ['POST', '/api/v1/posts'],
      ['PATCH', '/api/v1/posts/abc'],
      ['PUT', '/api/v1/posts/abc'],
    ] as const) {
      const res = await raw(method, url, deep);
      expect(res.statusCode, `${method} ${url}`).toBe(400);
      expect(res.headers['content-type']).toMatch(/problem\+json/);
      expect(res.body).toContain(String(MAX_JSON_DEPTH));
    }
    // 64 levels are still read (and then validated as usual: 422, not 400).
    const ok = `{"title":"x","body":${'['.repeat(MAX_JSON_DEPTH - 1)}${']'.repeat(MAX_JSON_DEPTH - 1)}}`;
    expect((await raw('POST', '/api/v1/posts', ok)).statusCode).toBe(422);
  });

  it('a bulk whose nested rows add up to more than 1,000 is a 413 and writes nothing', async () => {
    const postsBefore = await countRows(t, 'posts');
    const commentsBefore = await countRows(t, 'comments');
    // 20 posts with 60 comments each: every array is small, the rows are 1,220.
    const bulk = Array.from({ length: 20 }, (_, i) => ({
      title: `Bulk ${i}`,
      body: 'b',
      comments: Array.from({ length: 60 }, (_, j) => ({ author_name: `r${j}`, body: 'c' })),
    }));
    const res = await session.post('/api/v1/posts', bulk);
    expect(res.status).toBe(413);
    expect(res.body.title).toBeDefined();
    expect(res.text).toContain(String(MAX_ROWS_PER_WRITE));
    expect(await countRows(t, 'posts')).toBe(postsBefore);
    expect(await countRows(t, 'comments')).toBe(commentsBefore);
    // 1,000 rows in all are accepted.
    const fits = Array.from({ length: 10 }, (_, i) => ({
      title: `Fits ${i}`,
      body: 'b',
      comments: Array.from({ length: 99 }, (_, j) => ({ author_name: `r${j}`, body: 'c' })),
    }));
    const accepted = await session.post('/api/v1/posts', fits);
    expect(accepted.status, accepted.text.slice(0, 300)).toBe(201);
    expect(await countRows(t, 'comments')).toBe(commentsBefore + 990);
  });

  it('measurePayload walks without recursion: 200,000 levels do not overflow the stack', () => {
    let value: unknown = 1;
    for (let i = 0; i < 200_000; i += 1) value = [value];
    expect(measurePayload(value, MAX_JSON_DEPTH).depth).toBe(MAX_JSON_DEPTH + 1);
    expect(measurePayload({ a: [{ b: {} }, {}] }, MAX_JSON_DEPTH)).toEqual({ depth: 4, objects: 4 });
  });
});
