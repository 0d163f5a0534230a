import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserRecord } from '../../src/auth/core/users.ts';
import type { TestClient } from '../support/client.ts';
import { testDialect } from '../support/databases.ts';
import { countRows, startBlogApp, type BlogApp } from '../support/api-app.ts';

/** ETag / If-Match / If-None-Match and Idempotency-Key (contract section 11). */
describe(`ETags and idempotency keys on ${testDialect()}`, () => {
  let t: BlogApp;
  let owner: UserRecord;
  let session: TestClient;
  beforeAll(async () => {
    t = await startBlogApp();
    owner = await t.createUser();
    session = await t.signIn(owner);
  });
  afterAll(async () => t?.close());

  const createPost = async (title = 'Tagged post') => {
    const created = await session.post('/api/v1/posts', { title, body: 'b', status: 'published' });
    expect(created.status).toBe(201);
    return created;
  };

  describe('ETag', () => {
    it('single reads and writes carry the same strong ETag; it changes with the record', async () => {
      const created = await createPost();
      const etag = created.headers.etag as string;
      expect(etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
      const read = await session.get(`/api/v1/posts/${created.body.data.id}`);
      expect(read.headers.etag).toBe(etag);
      const withComments = await session.get(`/api/v1/posts/${created.body.data.id}?derive=comments`);
      expect(withComments.headers.etag).toBe(etag);
      t.clock.advance(1000);
      const patched = await session.patch(`/api/v1/posts/${created.body.data.id}`, {
        title: 'Changed title',
      });
      expect(patched.headers.etag).not.toBe(etag);
      expect((await session.get(`/api/v1/posts/${created.body.data.id}`)).headers.etag).toBe(
        patched.headers.etag,
      );
      // A sparse read is not the whole record: no ETag.
      const sparse = await session.get(`/api/v1/posts/${created.body.data.id}?fields=title`);
      expect(sparse.headers.etag).toBeUndefined();
    });

    it('If-None-Match with the current ETag → 304 without a body; a stale one → 200', async () => {
      const created = await createPost();
      const url = `/api/v1/posts/${created.body.data.id}`;
      const etag = created.headers.etag as string;
      const fresh = await session.get(url, 'json', { headers: { 'if-none-match': `"other", ${etag}` } });
      expect(fresh.status).toBe(304);
      expect(fresh.text).toBe('');
      expect(fresh.headers.etag).toBe(etag);
      expect((await session.get(url, 'json', { headers: { 'if-none-match': '*' } })).status).toBe(304);
      const stale = await session.get(url, 'json', { headers: { 'if-none-match': '"stale"' } });
      expect(stale.status).toBe(200);
    });

    it('If-Match that does not match → 412 problem and nothing written; a match writes', async () => {
      const created = await createPost();
      const url = `/api/v1/posts/${created.body.data.id}`;
      const etag = created.headers.etag as string;
      const stale = await session.patch(url, { title: 'Lost update' }, 'json', {
        headers: { 'if-match': '"stale"' },
      });
      expect(stale.status).toBe(412);
      expect(stale.headers['content-type']).toContain('application/problem+json');
      expect((await session.get(url)).body.data.title).toBe('Tagged post');
      const put = await session.put(url, { title: 'Replaced', body: 'b', status: 'published' }, 'json', {
        headers: { 'if-match': '"stale"' },
      });
      expect(put.status).toBe(412);
      const deleted = await session.delete(url, 'json', { headers: { 'if-match': '"stale"' } });
      expect(deleted.status).toBe(412);
      expect((await session.get(url)).status).toBe(200);
      const ok = await session.patch(url, { title: 'Right version' }, 'json', {
        headers: { 'if-match': etag },
      });
      expect(ok.status).toBe(200);
      const gone = await session.delete(url, 'json', { headers: { 'if-match': ok.headers.etag as string } });
      expect(gone.status).toBe(200);
    });

    it('two writers with the same ETag in parallel: exactly one wins, the other gets 412', async () => {
      for (let round = 0; round < 3; round++) {
        const created = await createPost();
        const url = `/api/v1/posts/${created.body.data.id}`;
        const etag = created.headers.etag as string;
        const results = await Promise.all(
          ['Writer A', 'Writer B', 'Writer C'].map((title) =>
            session.patch(url, { title }, 'json', { headers: { 'if-match': etag } }),
          ),
        );
        const statuses = results.map((r) => r.status).sort();
        expect(statuses).toEqual([200, 412, 412]);
        const winner = results.find((r) => r.status === 200)!;
        expect((await session.get(url)).body.data.title).toBe(winner.body.data.title);
      }
    });
  });

  describe('Idempotency-Key', () => {
    const key = (value: string) => ({ headers: { 'idempotency-key': value } });

    it('the same key and body replays the stored response; nothing is created twice', async () => {
      const before = await countRows(t, 'posts');
      const body = { title: 'Only once', body: 'b' };
      const first = await session.post('/api/v1/posts', body, 'json', key('key-1'));
      expect(first.status).toBe(201);
      expect(first.headers['idempotency-replayed']).toBeUndefined();
      const again = await session.post('/api/v1/posts', body, 'json', key('key-1'));
      expect(again.status).toBe(201);
      expect(again.headers['idempotency-replayed']).toBe('true');
      expect(again.body).toEqual(first.body);
      expect(again.headers.etag).toBe(first.headers.etag);
      expect(await countRows(t, 'posts')).toBe(before + 1);
      // Keys are exact (a case-insensitive collation must not merge them).
      const other = await session.post('/api/v1/posts', body, 'json', key('KEY-1'));
      expect(other.headers['idempotency-replayed']).toBeUndefined();
      expect(await countRows(t, 'posts')).toBe(before + 2);
    });

    it('the same key with another body → 422; another caller has keys of its own', async () => {
      await session.post('/api/v1/posts', { title: 'First body', body: 'b' }, 'json', key('key-2'));
      const changed = await session.post(
        '/api/v1/posts',
        { title: 'Other body', body: 'b' },
        'json',
        key('key-2'),
      );
      expect(changed.status).toBe(422);
      const stranger = await t.signIn(await t.createUser());
      const theirs = await stranger.post(
        '/api/v1/posts',
        { title: 'Other body', body: 'b' },
        'json',
        key('key-2'),
      );
      expect(theirs.status).toBe(201);
      expect(theirs.headers['idempotency-replayed']).toBeUndefined();
    });

    it('parallel duplicates create one record: one 201, the others replay or get 409', async () => {
      const before = await countRows(t, 'posts');
      const body = { title: 'Raced create', body: 'b' };
      const results = await Promise.all(
        Array.from({ length: 5 }, () => session.post('/api/v1/posts', body, 'json', key('key-race'))),
      );
      const fresh = results.filter(
        (r) => r.status === 201 && r.headers['idempotency-replayed'] === undefined,
      );
      expect(fresh).toHaveLength(1);
      for (const r of results) {
        if (r === fresh[0]) continue;
        expect([201, 409]).toContain(r.status);
        if (r.status === 201) expect(r.body).toEqual(fresh[0]!.body);
      }
      expect(await countRows(t, 'posts')).toBe(before + 1);
    });

    it('a failed request frees its key; keys expire after 24 hours; a bad key is 400', async () => {
      const bad = await session.post('/api/v1/posts', { title: 'x', body: 'b' }, 'json', key('key-3'));
      expect(bad.status).toBe(422);
      const fixed = await session.post(
        '/api/v1/posts',
        { title: 'Fixed title', body: 'b' },
        'json',
        key('key-3'),
      );
      expect(fixed.status).toBe(201);
      expect(fixed.headers['idempotency-replayed']).toBeUndefined();
      t.clock.advance(24 * 60 * 60 * 1000 + 1000);
      // The session expired too: the same user signs in again (keys belong to the user).
      session = await t.signIn(owner);
      const later = await session.post(
        '/api/v1/posts',
        { title: 'Fixed title', body: 'b' },
        'json',
        key('key-3'),
      );
      expect(later.status).toBe(201);
      expect(later.headers['idempotency-replayed']).toBeUndefined();
      expect(later.body.data.id).not.toBe(fixed.body.data.id);
      const tooLong = await session.post(
        '/api/v1/posts',
        { title: 'Long key', body: 'b' },
        'json',
        key('k'.repeat(256)),
      );
      expect(tooLong.status).toBe(400);
    });
  });
});
