import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { UserRecord } from '../../src/auth/core/users.ts';
import type { TestClient } from '../support/client.ts';
import { countRows, insertPosts, publicId, startBlogApp, type BlogApp } from '../support/api-app.ts';

const comment = (body: string, extra: Record<string, unknown> = {}) => ({
  author_name: 'Reader',
  body,
  ...extra,
});

describe('resource API writes: belongsTo objects in POST (comments → post)', () => {
  let t: BlogApp;
  let user: UserRecord;
  let session: TestClient;
  let published: number;
  let othersDraft: number;
  beforeAll(async () => {
    t = await startBlogApp({ countQueries: true });
    user = await t.createUser({ username: 'commenter' });
    session = await t.signIn(user);
    [published] = await insertPosts(t, user, [{ status: 'published', title: 'Published post' }]);
    [othersDraft] = await insertPosts(t, await t.createUser(), [{ status: 'draft' }]);
  });
  afterAll(async () => t?.close());

  let posts = 0;
  let comments = 0;
  beforeEach(async () => {
    posts = await countRows(t, 'posts');
    comments = await countRows(t, 'comments');
  });
  const unchanged = async () => {
    expect(await countRows(t, 'posts')).toBe(posts);
    expect(await countRows(t, 'comments')).toBe(comments);
  };

  it('refers to an existing post by its public id: the key fills post_id, the post is embedded', async () => {
    const id = publicId(t, published!);
    // Anyone may comment on a visible post: no caller needed to refer to it.
    const response = await t.client().post('/api/v1/comments', comment('Nice', { post: { id } }));
    expect(response.status).toBe(201);
    expect(response.body.data).toMatchObject({
      post_id: id,
      body: 'Nice',
      post: { id, title: 'Published post' },
    });
    // Embedded as a read shows it (its afterQuery ran), with no raw id anywhere.
    expect(response.body.data.post.excerpt).toEqual(expect.any(String));
    expect(response.text).not.toContain(`"post_id":${published}`);
    expect(await countRows(t, 'comments')).toBe(comments + 1);
  });

  it('creates a new parent first, validated and hooked as a POST to posts', async () => {
    const response = await session.post(
      '/api/v1/comments',
      comment('First comment on a new post', {
        post: { title: 'Made from a comment', body: 'Its body', status: 'published' },
      }),
    );
    expect(response.status).toBe(201);
    const created = response.body.data;
    expect(created.post).toMatchObject({ title: 'Made from a comment', status: 'published' });
    expect(created.post_id).toBe(created.post.id);
    expect(await countRows(t, 'posts')).toBe(posts + 1);
    // The posts hook made the caller its author.
    const read = await session.get(`/api/v1/posts/${created.post.id}?derive=author,comments`);
    expect(read.body.data.author.username).toBe('commenter');
    expect(read.body.data.comments.map((c: { body: string }) => c.body)).toEqual([
      'First comment on a new post',
    ]);
  });

  it('a new parent needs the parent resource’s auth: anonymous → 401, token without posts:create → 403', async () => {
    const payload = comment('x', { post: { title: 'Anonymous post', body: 'b' } });
    expect((await t.client().post('/api/v1/comments', payload)).status).toBe(401);
    const { token } = await t.services.tokens.issue({
      userId: user.id,
      name: 'comments only',
      abilities: ['comments:create'],
      expiresAt: null,
    });
    const forbidden = await t.client().post('/api/v1/comments', payload, 'json', { token });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.detail).toContain('posts:create');
    await unchanged();
  });

  it('an invalid parent in a bulk writes nothing, naming [i].post.field', async () => {
    const response = await session.post('/api/v1/comments', [
      comment('one', { post: { id: publicId(t, published!) } }),
      comment('two', { post: { title: 'A good new post', body: 'b' } }),
      comment('three', { post: { title: 'x' } }),
    ]);
    expect(response.status).toBe(422);
    expect(response.body.invalid_params.map((p: { name: string }) => p.name).sort()).toEqual([
      '[2].post.body',
      '[2].post.title',
    ]);
    await unchanged();
  });

  it('an unknown parent id is a 422 after earlier items were written, and rolls them all back', async () => {
    // The id is canonical but no post has it: only the database can tell, inside the transaction.
    const response = await session.post('/api/v1/comments', [
      comment('one', { post: { title: 'Written, then rolled back', body: 'b' } }),
      comment('two', { post: { id: publicId(t, published!) } }),
      comment('three', { post: { id: publicId(t, 987_654) } }),
    ]);
    expect(response.status).toBe(422);
    expect(response.body.invalid_params).toEqual([{ name: '[2].post.id', reason: expect.any(String) }]);
    expect(response.text).not.toContain('987654');
    await unchanged();
  });

  it('a post the caller cannot see is refused exactly like one that does not exist', async () => {
    const hidden = await session.post(
      '/api/v1/comments',
      comment('x', { post: { id: publicId(t, othersDraft!) } }),
    );
    const missing = await session.post(
      '/api/v1/comments',
      comment('x', { post: { id: publicId(t, 987_655) } }),
    );
    expect(hidden.status).toBe(422);
    expect(hidden.body.invalid_params).toEqual([{ name: 'post.id', reason: expect.any(String) }]);
    expect(missing.body.invalid_params[0].reason).toBe(hidden.body.invalid_params[0].reason);
    await unchanged();
  });

  it('refuses malformed parent objects with their paths', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [comment('x', { post: { id: 'not-a-sqid!' } }), 'post.id'],
      [comment('x', { post: { id: published } }), 'post.id'], // raw ids are not accepted
      [comment('x', { post: { id: publicId(t, published!), title: 'edit it' } }), 'post.title'],
      [comment('x', { post: 'abc' }), 'post'],
      [comment('x', { post: [] }), 'post'],
      [comment('x', { post_id: publicId(t, published!), post: { id: publicId(t, published!) } }), 'post_id'],
      [comment('x', { post: { title: 'Fine title', body: 'b', author_id: 1 } }), 'post.author_id'],
    ];
    for (const [payload, name] of cases) {
      const response = await session.post('/api/v1/comments', payload);
      expect(response.status, name).toBe(422);
      expect(response.body.invalid_params.map((p: { name: string }) => p.name)).toEqual([name]);
    }
    // Without the belongsTo object the foreign key is required as before.
    const none = await session.post('/api/v1/comments', comment('x'));
    expect(none.body.invalid_params.map((p: { name: string }) => p.name)).toEqual(['post_id']);
    await unchanged();
  });

  it('nested children cannot name their parent (the parent sets it), in POST and in PATCH', async () => {
    const nested = await session.post('/api/v1/posts', {
      title: 'Parent post',
      body: 'b',
      comments: [comment('c', { post: { id: publicId(t, published!) } })],
    });
    expect(nested.status).toBe(422);
    expect(nested.body.invalid_params.map((p: { name: string }) => p.name)).toEqual(['comments[0].post']);
    const patch = await session.patch(`/api/v1/posts/${publicId(t, published!)}`, {
      comments: [comment('c', { post: { id: publicId(t, published!) } })],
    });
    expect(patch.status).toBe(422);
    expect(patch.body.invalid_params.map((p: { name: string }) => p.name)).toEqual(['comments[0].post']);
    await unchanged();
  });

  it('a bulk create runs one multi-row INSERT … RETURNING per level: no savepoint, no read-back', async () => {
    const before = t.queries.length;
    const response = await session.post(
      '/api/v1/posts',
      Array.from({ length: 5 }, (_, i) => ({ title: `Counted ${i}`, body: 'b' })),
    );
    expect(response.status).toBe(201);
    const statements = t.queries.slice(before).map((q) => q.toLowerCase());
    const count = (pattern: RegExp) => statements.filter((q) => pattern.test(q)).length;
    expect(count(/^insert into [`"]posts[`"]/)).toBe(1);
    expect(count(/savepoint/)).toBe(0);
    // MariaDB 10.5+ has RETURNING too: nobody reads the rows back.
    expect(count(/^select[\s\S]* from [`"]posts[`"]/)).toBe(0);
    expect(response.body.data.map((p: { status: string }) => p.status)).toEqual(Array(5).fill('draft'));
    expect(response.body.data.map((p: { title: string }) => p.title)).toEqual(
      Array.from({ length: 5 }, (_, i) => `Counted ${i}`),
    );
  });

  it('new parents and children nest: a child failure deep inside rolls back all', async () => {
    const before = t.queries.length;
    const response = await session.post('/api/v1/comments', [
      comment('ok', { post: { title: 'Parent with comments', body: 'b', comments: [comment('inner')] } }),
      comment('second', { post: { title: 'Second parent', body: 'b' } }),
    ]);
    expect(response.status).toBe(201);
    const [first] = response.body.data;
    expect(first.post.comments.map((c: { body: string }) => c.body)).toEqual(['inner']);
    expect(first.post.comments[0].post_id).toBe(first.post.id);
    // Two new posts (one per item), then the two comments of the level in one statement.
    const inserts = t.queries.slice(before).filter((q) => /^insert into [`"]comments[`"]/i.test(q));
    expect(inserts).toHaveLength(2); // the inner comment's level, then the outer level
    posts = await countRows(t, 'posts');
    comments = await countRows(t, 'comments');
    // The same shape, but the second item names a post the caller cannot see: the first item's new
    // post and its comment, written by then, are rolled back too.
    const failing = await session.post('/api/v1/comments', [
      comment('ok', { post: { title: 'Rolled back parent', body: 'b', comments: [comment('inner')] } }),
      comment('bad', { post: { id: publicId(t, othersDraft!) } }),
    ]);
    expect(failing.status).toBe(422);
    expect(failing.body.invalid_params).toEqual([{ name: '[1].post.id', reason: expect.any(String) }]);
    await unchanged();
  });
});
