import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserRecord } from '../../src/auth/core/users.ts';
import type { TestClient } from '../support/client.ts';
import { testDialect } from '../support/databases.ts';
import { countRows, startBlogApp, type BlogApp } from '../support/api-app.ts';

interface Comment {
  id: string;
  author_name: string;
  body: string;
}

/** Nested updates in PUT and PATCH: the demo's posts and their comments (contract section 11). */
describe(`nested updates on ${testDialect()}`, () => {
  let t: BlogApp;
  let owner: UserRecord;
  let session: TestClient;
  beforeAll(async () => {
    t = await startBlogApp();
    owner = await t.createUser();
    session = await t.signIn(owner);
  });
  afterAll(async () => t?.close());

  const newPost = async (comments: number) => {
    const created = await session.post('/api/v1/posts', {
      title: 'With comments',
      body: 'b',
      status: 'published',
      comments: Array.from({ length: comments }, (_, i) => ({ author_name: `A${i}`, body: `c${i}` })),
    });
    expect(created.status).toBe(201);
    return created.body.data as { id: string; comments: Comment[] };
  };
  const commentsOf = async (id: string) =>
    ((await session.get(`/api/v1/posts/${id}?derive=comments`)).body.data.comments as Comment[]).map(
      (c) => `${c.author_name}:${c.body}`,
    );

  it('PATCH updates, creates and deletes children; those not listed stay', async () => {
    const post = await newPost(3);
    const [first, second, third] = post.comments;
    const response = await session.patch(`/api/v1/posts/${post.id}`, {
      title: 'Renamed',
      comments: [
        { id: first!.id, body: 'edited' },
        { id: second!.id, _delete: true },
        { author_name: 'New', body: 'added' },
      ],
    });
    expect(response.status).toBe(200);
    expect(response.body.data.title).toBe('Renamed');
    expect(response.body.data.comments.map((c: Comment) => `${c.author_name}:${c.body}`)).toEqual([
      'A0:edited',
      'A2:c2',
      'New:added',
    ]);
    expect(await commentsOf(post.id)).toEqual(['A0:edited', 'A2:c2', 'New:added']);
    expect(third).toBeDefined();
  });

  it('PUT replaces the whole set: children not listed are deleted', async () => {
    const post = await newPost(3);
    const response = await session.put(`/api/v1/posts/${post.id}`, {
      title: 'Replaced',
      body: 'b2',
      status: 'published',
      comments: [
        { id: post.comments[2]!.id, author_name: 'Kept' },
        { author_name: 'Fresh', body: 'x' },
      ],
    });
    expect(response.status).toBe(200);
    expect(await commentsOf(post.id)).toEqual(['Kept:c2', 'Fresh:x']);
    const empty = await session.put(`/api/v1/posts/${post.id}`, {
      title: 'Replaced',
      body: 'b2',
      status: 'published',
      comments: [],
    });
    expect(empty.status).toBe(200);
    expect(await commentsOf(post.id)).toEqual([]);
  });

  it('a child of another record is 422 at its path, and nothing is written', async () => {
    const mine = await newPost(1);
    const other = await newPost(1);
    const before = await countRows(t, 'comments');
    const response = await session.patch(`/api/v1/posts/${mine.id}`, {
      title: 'Should not stick',
      comments: [
        { author_name: 'Created', body: 'then rolled back' },
        { id: other.comments[0]!.id, body: 'stolen' },
      ],
    });
    expect(response.status).toBe(422);
    expect(response.body.invalid_params).toEqual([{ name: 'comments[1].id', reason: expect.any(String) }]);
    expect(await countRows(t, 'comments')).toBe(before);
    expect(await commentsOf(other.id)).toEqual(['A0:c0']);
    const read = await session.get(`/api/v1/posts/${mine.id}`);
    expect(read.body.data.title).toBe('With comments');
    const deleteOther = await session.patch(`/api/v1/posts/${mine.id}`, {
      comments: [{ id: other.comments[0]!.id, _delete: true }],
    });
    expect(deleteOther.status).toBe(422);
    expect(await commentsOf(other.id)).toEqual(['A0:c0']);
  });

  it("validates each child with its own resource's validator, naming the path", async () => {
    const post = await newPost(3);
    const [first, second, third] = post.comments;
    const response = await session.patch(`/api/v1/posts/${post.id}`, {
      comments: [
        { id: first!.id, body: '' },
        { author_name: 'x' },
        { id: second!.id, _delete: 'yes' },
        { id: 'not-an-id', body: 'b' },
        { id: third!.id, post_id: post.id },
        'text',
        { id: first!.id, body: 'twice' },
      ],
    });
    expect(response.status).toBe(422);
    const names = response.body.invalid_params.map((p: { name: string }) => p.name);
    expect(names.sort()).toEqual([
      'comments[0].body',
      'comments[1].body',
      'comments[2]._delete',
      'comments[3].id',
      'comments[4].post_id',
      'comments[5]',
      'comments[6].id',
    ]);
    expect(await commentsOf(post.id)).toEqual(['A0:c0', 'A1:c1', 'A2:c2']);
  });

  it("applies the child's own auth: a token without comments:update is 403", async () => {
    const post = await newPost(1);
    const { token } = await t.services.tokens.issue({
      userId: owner.id,
      name: 'posts only',
      abilities: ['posts:update'],
      expiresAt: null,
    });
    const response = await t
      .client()
      .patch(`/api/v1/posts/${post.id}`, { comments: [{ id: post.comments[0]!.id, body: 'no' }] }, 'json', {
        token,
      });
    expect(response.status).toBe(403);
    expect(response.body.detail).toContain('comments:update');
    expect(await commentsOf(post.id)).toEqual(['A0:c0']);
  });

  it('the post of another author cannot be reached (404), nor its comments', async () => {
    const post = await newPost(1);
    const stranger = await t.signIn(await t.createUser());
    const response = await stranger.patch(`/api/v1/posts/${post.id}`, {
      comments: [{ id: post.comments[0]!.id, _delete: true }],
    });
    expect(response.status).toBe(404);
    expect(await commentsOf(post.id)).toEqual(['A0:c0']);
  });

  it('the demo post takes pinned (boolean) and tags (JSON): filter, sort and round trip', async () => {
    const pinned = await session.post('/api/v1/posts', {
      title: 'Pinned one',
      body: 'b',
      status: 'published',
      pinned: true,
      tags: ['news', 'Élan'],
    });
    expect(pinned.status).toBe(201);
    expect(pinned.body.data).toMatchObject({ pinned: true, tags: ['news', 'Élan'] });
    const list = await session.get('/api/v1/posts?pinned=true');
    expect(list.body.data.map((p: { id: string }) => p.id)).toEqual([pinned.body.data.id]);
    const sorted = await session.get('/api/v1/posts?sort=-pinned&limit=1&fields=pinned,tags');
    expect(sorted.body.data[0]).toEqual({ id: pinned.body.data.id, pinned: true, tags: ['news', 'Élan'] });
    const patched = await session.patch(`/api/v1/posts/${pinned.body.data.id}`, { pinned: false, tags: [] });
    expect(patched.body.data).toMatchObject({ pinned: false, tags: [] });
    const bad = await session.patch(`/api/v1/posts/${pinned.body.data.id}`, { tags: 'news' });
    expect(bad.status).toBe(422);
  });
});
