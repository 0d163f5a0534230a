import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserRecord } from '../../src/auth/core/users.ts';
import { insertComments, insertPosts, publicId, startBlogApp, type BlogApp } from '../support/api-app.ts';

/** Hidden columns (posts.author_id) cannot be sorted, searched or filtered by (contract section 11). */
describe('hidden columns on the blog', () => {
  let t: BlogApp;
  let user: UserRecord;
  let ids: number[];
  beforeAll(async () => {
    t = await startBlogApp();
    user = await t.createUser();
    const other = await t.createUser();
    ids = await insertPosts(t, user, [{ title: 'one' }, { title: 'two' }]);
    ids.push(...(await insertPosts(t, other, [{ title: 'three' }])));
    for (const id of ids) await insertComments(t, id, 1);
  });
  afterAll(async () => t?.close());

  it('refuses them in sort and filters with 400, and never sends them', async () => {
    const client = t.client();
    for (const query of [
      'sort=author_id',
      'sort=-author_id',
      'author_id=1',
      'filter[author_id][eq]=1',
      `filter=${encodeURIComponent('{"author_id":{"eq":1}}')}`,
    ]) {
      const response = await client.get(`/api/v1/posts?${query}`);
      expect(response.status, query).toBe(400);
      expect(response.text).toContain('author_id');
    }
    const list = await client.get('/api/v1/posts?sort=-title');
    expect(list.status).toBe(200);
    expect(list.text).not.toContain('author_id');
  });

  it('filters an obfuscated foreign key by encoded ids, never by raw ones', async () => {
    const client = t.client();
    const wanted = [publicId(t, ids[0]!), publicId(t, ids[2]!)];
    const response = await client.get(`/api/v1/comments?filter[post_id][in]=${wanted.join(',')}`);
    expect(response.status).toBe(200);
    expect(response.body.data.map((c: { post_id: string }) => c.post_id).sort()).toEqual([...wanted].sort());
    const raw = await client.get(`/api/v1/comments?filter[post_id][eq]=${ids[0]}`);
    expect(raw.status).toBe(400);
    expect(raw.body.invalid_params).toEqual([{ name: 'filter[post_id][eq]', reason: 'is not a valid id' }]);
    // The order of obfuscated ids is secret: no range operators on them.
    const range = await client.get(`/api/v1/comments?filter[post_id][gt]=${wanted[0]}`);
    expect(range.status).toBe(400);
  });
});
