import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserRecord } from '../../src/auth/core/users.ts';
import type { TestClient } from '../support/client.ts';
import { countRows, insertPosts, startBlogApp, type BlogApp } from '../support/api-app.ts';

const newPost = { title: 'Authored', body: 'Some body' };
const METADATA = 'http://localhost:3000/.well-known/oauth-protected-resource';

describe('resource API authentication (requiredAuth) and versions', () => {
  let t: BlogApp;
  let alice: UserRecord;
  let bob: UserRecord;
  let aliceSession: TestClient;
  beforeAll(async () => {
    t = await startBlogApp();
    alice = await t.createUser({ username: 'alice api' });
    bob = await t.createUser({ username: 'bob api' });
    aliceSession = await t.signIn(alice);
    await insertPosts(t, alice, [
      { title: 'Alice published', status: 'published' },
      { title: 'Alice draft', status: 'draft' },
    ]);
    await insertPosts(t, bob, [
      { title: 'Bob published', status: 'published' },
      { title: 'Bob draft', status: 'draft' },
    ]);
  });
  afterAll(async () => t?.close());

  const token = async (user: UserRecord, abilities: string[]) =>
    (
      await t.services.tokens.issue({
        userId: user.id,
        name: `t${abilities.join()}`,
        abilities,
        expiresAt: null,
      })
    ).token;
  const titles = (response: { body: { data: { title: string }[] } }) =>
    response.body.data.map((p) => p.title).sort();

  it('anonymous POST → 401 problem details with WWW-Authenticate: Bearer, nothing written', async () => {
    const before = await countRows(t, 'posts');
    const response = await t.client().post('/api/v1/posts', newPost);
    expect(response.status).toBe(401);
    // The demo's OAuth provider: the challenge names the protected resource metadata (RFC 9728).
    expect(response.headers['www-authenticate']).toBe(`Bearer resource_metadata="${METADATA}"`);
    expect(response.headers['content-type']).toContain('application/problem+json');
    expect(response.body).toMatchObject({
      type: 'about:blank',
      title: 'Unauthorized',
      status: 401,
      instance: '/api/v1/posts',
    });
    expect(await countRows(t, 'posts')).toBe(before);
    for (const [method, url] of [
      ['PATCH', '/api/v1/posts/abc'],
      ['PUT', '/api/v1/posts/abc'],
      ['DELETE', '/api/v1/posts/abc'],
    ] as const) {
      const r = await t.client().request(method, url, 'json', { title: 'x' });
      expect(r.status, `${method} ${url}`).toBe(401);
    }
  });

  it('bearer without posts:create → 403; with posts:create, posts:* or * → 201 as the token owner', async () => {
    const before = await countRows(t, 'posts');
    for (const abilities of [['posts:read'], ['comments:create'], ['posts:update', 'posts:delete']]) {
      const response = await t
        .client()
        .post('/api/v1/posts', newPost, 'json', { token: await token(bob, abilities) });
      expect(response.status, abilities.join()).toBe(403);
      expect(response.body.detail).toContain('posts:create');
    }
    expect(await countRows(t, 'posts')).toBe(before);
    for (const abilities of [['posts:create'], ['posts:*'], ['*']]) {
      const bearer = await token(bob, abilities);
      const response = await t
        .client()
        .post('/api/v1/posts', { ...newPost, title: `By ${abilities}` }, 'json', { token: bearer });
      expect(response.status, abilities.join()).toBe(201);
      const read = await t.client().get(`/api/v1/posts/${response.body.data.id}?derive=author`, 'json', {
        token: await token(bob, ['posts:read']),
      });
      expect(read.body.data.author.username).toBe('bob api');
    }
  });

  it('a session caller → 201', async () => {
    const response = await aliceSession.post('/api/v1/posts', newPost);
    expect(response.status).toBe(201);
  });

  it('an invalid bearer token → 401 problem details, never a fall-back to the cookie', async () => {
    const response = await aliceSession.post('/api/v1/posts', newPost, 'json', {
      token: 'cit_not-a-real-token',
    });
    expect(response.status).toBe(401);
    expect(response.headers['content-type']).toContain('application/problem+json');
    expect(response.headers['www-authenticate']).toBe(
      `Bearer error="invalid_token", resource_metadata="${METADATA}"`,
    );
  });

  it('update and delete need posts:update / posts:delete on a token', async () => {
    const created = (
      await t.client().post('/api/v1/posts', newPost, 'json', { token: await token(bob, ['*']) })
    ).body.data;
    const readOnly = await token(bob, ['posts:read', 'posts:create']);
    expect(
      (await t.client().patch(`/api/v1/posts/${created.id}`, { title: 'Nope' }, 'json', { token: readOnly }))
        .status,
    ).toBe(403);
    expect((await t.client().delete(`/api/v1/posts/${created.id}`, 'json', { token: readOnly })).status).toBe(
      403,
    );
    const updater = await token(bob, ['posts:update']);
    expect(
      (await t.client().patch(`/api/v1/posts/${created.id}`, { title: 'Yes' }, 'json', { token: updater }))
        .status,
    ).toBe(200);
    const deleter = await token(bob, ['posts:delete']);
    expect((await t.client().delete(`/api/v1/posts/${created.id}`, 'json', { token: deleter })).status).toBe(
      200,
    );
  });

  it('anonymous readers see only published posts; authors also their own drafts', async () => {
    const anonymous = await t.client().get('/api/v1/posts?search=published');
    expect(titles(anonymous)).toEqual(['Alice published', 'Bob published']);
    const drafts = await t.client().get('/api/v1/posts?search=draft');
    expect(drafts.body.data).toEqual([]);
    expect(drafts.body.pagination.total).toBe(0);
    expect(titles(await aliceSession.get('/api/v1/posts?search=draft'))).toEqual(['Alice draft']);
    const bobToken = await token(bob, ['posts:read']);
    expect(titles(await t.client().get('/api/v1/posts?search=draft', 'json', { token: bobToken }))).toEqual([
      'Bob draft',
    ]);
    // A token without posts:read reads like an anonymous caller.
    const narrow = await token(bob, ['comments:create']);
    expect((await t.client().get('/api/v1/posts?search=draft', 'json', { token: narrow })).body.data).toEqual(
      [],
    );
  });

  it('a draft read by id is 404 to others, 200 to its author', async () => {
    await insertPosts(t, alice, [{ title: 'Secret draft', status: 'draft' }]);
    const mine = await aliceSession.get('/api/v1/posts?search=Secret%20draft');
    const id = mine.body.data[0].id;
    expect((await aliceSession.get(`/api/v1/posts/${id}`)).status).toBe(200);
    expect((await t.client().get(`/api/v1/posts/${id}`)).status).toBe(404);
    const bobSession = await t.signIn(bob);
    expect((await bobSession.get(`/api/v1/posts/${id}`)).status).toBe(404);
  });

  it('anyone may comment (no requiredAuth on post); comments of drafts stay hidden', async () => {
    const published = (await t.client().get('/api/v1/posts?search=Alice%20published')).body.data[0];
    const response = await t
      .client()
      .post('/api/v1/comments', { post_id: published.id, author_name: 'Anon', body: 'Hello' });
    expect(response.status).toBe(201);
    const draft = (await aliceSession.get('/api/v1/posts?search=Alice%20draft')).body.data[0];
    expect(
      (await aliceSession.post('/api/v1/comments', { post_id: draft.id, author_name: 'Me', body: 'note' }))
        .status,
    ).toBe(201);
    const anonymous = await t.client().get('/api/v1/comments?limit=100');
    expect(anonymous.body.data.map((c: { post_id: string }) => c.post_id)).not.toContain(draft.id);
    const author = await aliceSession.get('/api/v1/comments?limit=100');
    expect(author.body.data.map((c: { post_id: string }) => c.post_id)).toContain(draft.id);
    const comment = anonymous.body.data[0];
    expect((await t.client().delete(`/api/v1/comments/${comment.id}`)).status).toBe(401);
  });

  it('publishes posts in v1 and v2, comments in v1 only: /api/v2/comments → 404', async () => {
    expect((await t.client().get('/api/v2/posts')).status).toBe(200);
    expect((await t.client().get('/api/v1/comments')).status).toBe(200);
    for (const url of ['/api/v2/comments', '/api/v2/comments/abc', '/api/v3/posts', '/api/v1/nothing']) {
      const response = await t.client().get(url);
      expect(response.status, url).toBe(404);
      expect(response.headers['content-type']).toContain('application/problem+json');
      expect(response.body).toMatchObject({ status: 404, title: 'Not Found', instance: url });
    }
    const v2 = await aliceSession.post('/api/v2/comments', { post_id: 'x', author_name: 'a', body: 'b' });
    expect(v2.status).toBe(404);
  });

  it('keeps the auth envelope outside the API prefix', async () => {
    const response = await t.client().get('/no-such-page');
    expect(response.status).toBe(404);
    expect(response.headers['content-type']).not.toContain('problem');
    expect(response.body).toMatchObject({ status: 'error' });
  });
});
