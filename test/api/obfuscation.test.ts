import Sqids from 'sqids';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deploymentAlphabet, IdCodec, spaceAlphabet } from '../../src/api/resource/sqids.ts';
import { SecretBox } from '../../src/core/crypto.ts';
import type { UserRecord } from '../../src/auth/core/users.ts';
import type { TestClient } from '../support/client.ts';
import type { TestResponse } from '../support/client.ts';
import { insertComments, insertPosts, publicId, startBlogApp, type BlogApp } from '../support/api-app.ts';

/** A raw integer under a key that names an id (`"id": 3`, `"post_id":12`): what must never be sent. */
const RAW_ID = /"(id|post_id|author_id)"\s*:\s*\d/;

describe('key obfuscation (Sqids)', () => {
  let t: BlogApp;
  let user: UserRecord;
  let session: TestClient;
  let rawIds: number[];
  const seen: TestResponse[] = [];
  const remember = (response: TestResponse) => {
    seen.push(response);
    return response;
  };
  beforeAll(async () => {
    t = await startBlogApp();
    user = await t.createUser({ username: 'obfuscated' });
    session = await t.signIn(user);
    rawIds = await insertPosts(
      t,
      user,
      Array.from({ length: 12 }, () => ({})),
    );
    await insertComments(t, rawIds[0]!, 3);
  });
  afterAll(async () => t?.close());

  it('sends ids as canonical Sqids strings of the configured minimum length, in lists and relations', async () => {
    const response = remember(await t.client().get('/api/v1/posts?derive=comments.post,author&limit=50'));
    expect(response.status).toBe(200);
    const first = response.body.data[0];
    expect(first.id).toBe(publicId(t, rawIds[0]!));
    for (const post of response.body.data) {
      expect(typeof post.id).toBe('string');
      expect(post.id.length).toBeGreaterThanOrEqual(8);
      expect(typeof post.author.id).toBe('string');
      for (const comment of post.comments) {
        expect(typeof comment.id).toBe('string');
        expect(comment.post_id).toBe(post.id);
        expect(comment.post.id).toBe(post.id);
      }
    }
    expect(new Set(response.body.data.map((p: { id: string }) => p.id)).size).toBe(12);
  });

  it('reads, updates and deletes by the public id', async () => {
    const id = publicId(t, rawIds[1]!);
    expect(remember(await session.get(`/api/v1/posts/${id}`)).body.data.id).toBe(id);
    expect(remember(await session.patch(`/api/v1/posts/${id}`, { title: 'Patched title' })).status).toBe(200);
    const deleted = remember(await session.delete(`/api/v1/posts/${publicId(t, rawIds[2]!)}`));
    expect(deleted.body.data).toEqual({ id: publicId(t, rawIds[2]!) });
  });

  it('answers 404 for raw, garbage and non-canonical ids', async () => {
    const raw = rawIds[3]!;
    const canonical = publicId(t, raw);
    // The same number encoded without the minimum length: plain Sqids decoding accepts it.
    const alphabet = spaceAlphabet(t.services.secrets, 'posts');
    const shortForm = new Sqids({ alphabet }).encode([raw]);
    expect(shortForm).not.toBe(canonical);
    expect(new Sqids({ alphabet, minLength: 8 }).decode(shortForm)).toEqual([raw]);
    // Two numbers in one id: decodes, but not to exactly one number.
    const pair = new Sqids({ alphabet, minLength: 8 }).encode([raw, raw]);
    for (const id of [
      String(raw),
      shortForm,
      pair,
      `${canonical}x`,
      canonical.slice(0, -1),
      'garbage!',
      '%27%20OR%201=1',
      '0',
      '-1',
    ]) {
      const response = remember(await session.get(`/api/v1/posts/${id}`));
      expect(response.status, id).toBe(404);
      expect(response.body.detail).not.toMatch(/\d/);
      expect(remember(await session.patch(`/api/v1/posts/${id}`, { title: 'Nope nope' })).status, id).toBe(
        404,
      );
      expect(remember(await session.delete(`/api/v1/posts/${id}`)).status, id).toBe(404);
    }
    expect((await session.get(`/api/v1/posts/${canonical}`)).status).toBe(200);
  });

  it('decodes payload ids: canonical only, else 422 naming the field', async () => {
    const target = rawIds[4]!;
    for (const bad of [
      String(target),
      target,
      new Sqids({ alphabet: spaceAlphabet(t.services.secrets, 'posts') }).encode([target]),
      'zzz',
    ]) {
      const response = remember(
        await t.client().post('/api/v1/comments', { post_id: bad, author_name: 'a', body: 'b' }),
      );
      expect(response.status, String(bad)).toBe(422);
      expect(response.body.invalid_params).toEqual([{ name: 'post_id', reason: expect.any(String) }]);
    }
    const ok = remember(
      await t
        .client()
        .post('/api/v1/comments', { post_id: publicId(t, target), author_name: 'a', body: 'b' }),
    );
    expect(ok.status).toBe(201);
    expect(ok.body.data.post_id).toBe(publicId(t, target));
    const stored = await t.db
      .selectFrom('comments')
      .select('post_id')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirstOrThrow();
    expect(Number(stored.post_id)).toBe(target);
  });

  it('decodes query values: ?post_id= takes the public id; raw or non-canonical ids are a 400', async () => {
    const response = remember(await t.client().get(`/api/v1/comments?post_id=${publicId(t, rawIds[0]!)}`));
    expect(response.status).toBe(200);
    expect(response.body.pagination.total).toBe(3);
    expect(response.body.data.every((c: { post_id: string }) => c.post_id === publicId(t, rawIds[0]!))).toBe(
      true,
    );
    const none = remember(await t.client().get(`/api/v1/comments?post_id=${publicId(t, rawIds[5]!)}`));
    expect(none.body.pagination.total).toBe(0);
    const shortForm = new Sqids({ alphabet: spaceAlphabet(t.services.secrets, 'posts') }).encode([
      rawIds[0]!,
    ]);
    for (const bad of [String(rawIds[0]), shortForm, 'nope']) {
      const refused = remember(await t.client().get(`/api/v1/comments?post_id=${bad}`));
      expect(refused.status, bad).toBe(400);
      expect(refused.body.invalid_params).toEqual([{ name: 'post_id', reason: 'is not a valid id' }]);
    }
  });

  it('never sends a raw id of an obfuscated field, in any response above', async () => {
    remember(
      await session.post('/api/v1/posts', {
        title: 'Fresh one',
        body: 'b',
        comments: [{ author_name: 'x', body: 'y' }],
      }),
    );
    remember(await session.post('/api/v1/posts', [{ title: 'Bulk one', body: 'b' }, { title: 'x' }]));
    expect(seen.length).toBeGreaterThan(30);
    for (const response of seen) expect(response.text).not.toMatch(RAW_ID);
  });
});

describe('Sqids alphabet', () => {
  it('is the default alphabet shuffled by the deployment secret: stable per secret, different between secrets', () => {
    const a = deploymentAlphabet(new SecretBox('secret-one-secret-one-secret-one-0'));
    const again = deploymentAlphabet(new SecretBox('secret-one-secret-one-secret-one-0'));
    const b = deploymentAlphabet(new SecretBox('secret-two-secret-two-secret-two-0'));
    const defaultAlphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
    expect(a).toBe(again);
    expect(a).not.toBe(b);
    expect([...a].sort().join('')).toBe([...defaultAlphabet].sort().join(''));
    expect(a).not.toBe(defaultAlphabet);
    expect(new IdCodec(a, 8).encode(1)).not.toBe(new IdCodec(b, 8).encode(1));
  });

  it('uses SQIDS_ALPHABET and SQIDS_MIN_LENGTH when configured', async () => {
    const alphabet = 'k3G7QAe51FCsPW92uEOyq4Bg6Sp8YzVTmnU0liwDdHXLajZrfxNhobJIRcMvKt';
    const t = await startBlogApp({ sqidsAlphabet: alphabet, sqidsMinLength: 12 });
    try {
      const user = await t.createUser();
      const [raw] = await insertPosts(t, user, [{}]);
      const response = await t.client().get('/api/v1/posts');
      // Per id space, SQIDS_ALPHABET is shuffled by the secret and the table's name.
      const postsAlphabet = spaceAlphabet(t.services.secrets, 'posts', alphabet);
      expect([...postsAlphabet].sort().join('')).toBe([...alphabet].sort().join(''));
      expect(response.body.data[0].id).toBe(
        new Sqids({ alphabet: postsAlphabet, minLength: 12 }).encode([raw!]),
      );
      expect(response.body.data[0].id).toHaveLength(12);
    } finally {
      await t.close();
    }
  });
});
