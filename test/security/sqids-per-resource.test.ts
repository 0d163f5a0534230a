/**
 * Issue 13 item 12: one Sqids alphabet per id space (the table the ids belong to), derived from the
 * secret. An id of one resource is not an id of another; a user's raw id (from /me) says nothing
 * about the public ids of posts; foreign keys use the space of the table they point at; only the
 * canonical form decodes. SQIDS_PER_RESOURCE=0 keeps the single alphabet of earlier versions.
 */
import fc from 'fast-check';
import Sqids from 'sqids';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretBox } from '../../src/core/crypto.ts';
import {
  deploymentAlphabet,
  deploymentCodecs,
  IdCodec,
  MAX_OBFUSCATED_ID,
  spaceAlphabet,
} from '../../src/api/resource/sqids.ts';
import { loadConfig } from '../../src/config/load.ts';
import { insertComments, insertPosts, publicId, startBlogApp, type BlogApp } from '../support/api-app.ts';

const secrets = new SecretBox('sqids-property-secret-sqids-property-secret');
const codecs = deploymentCodecs(secrets, { sqidsMinLength: 8 });
const space = fc.constantFrom('posts', 'comments', 'users', 'gadgets', 'posts.author_id', 'a', 'b_c');
// Obfuscated keys are integer columns: ids decode within their range (0 to 2^31 - 1) only.
const raw = fc.integer({ min: 0, max: MAX_OBFUSCATED_ID });

describe('per-space codecs (properties)', () => {
  it('round-trips every id of an integer column in every space, canonical form only', () => {
    fc.assert(
      fc.property(space, raw, (name, n) => {
        const codec = codecs.of(name);
        const id = codec.encode(n);
        expect(codec.decode(id)).toBe(n);
        // The same number without the minimum length decodes in plain Sqids, never here.
        const short = new Sqids({ alphabet: spaceAlphabet(secrets, name) }).encode([n]);
        if (short !== id) expect(codec.decode(short)).toBeNull();
      }),
      { numRuns: 2000 },
    );
  });

  it('refuses an encoding of a number past the integer columns (no out-of-range id reaches SQL)', () => {
    fc.assert(
      fc.property(
        space,
        fc.integer({ min: MAX_OBFUSCATED_ID + 1, max: Number.MAX_SAFE_INTEGER }),
        (name, n) => {
          expect(codecs.of(name).decode(codecs.of(name).encode(n))).toBeNull();
        },
      ),
      { numRuns: 500 },
    );
  });

  it("never decodes one space's id to the same record in another space", () => {
    fc.assert(
      fc.property(space, space, raw, (a, b, n) => {
        fc.pre(a !== b);
        expect(codecs.of(a).encode(n)).not.toBe(codecs.of(b).encode(n));
        expect(codecs.of(b).decode(codecs.of(a).encode(n))).not.toBe(n);
      }),
      { numRuns: 2000 },
    );
  });

  it('derives each alphabet from the secret and the space: a permutation, stable, different per secret', () => {
    const other = new SecretBox('another-secret-another-secret-another-secret');
    const sorted = (alphabet: string) => [...alphabet].sort().join('');
    const posts = spaceAlphabet(secrets, 'posts');
    expect(spaceAlphabet(secrets, 'posts')).toBe(posts);
    expect(sorted(posts)).toBe(sorted(deploymentAlphabet(secrets)));
    expect(posts).not.toBe(spaceAlphabet(secrets, 'users'));
    expect(posts).not.toBe(spaceAlphabet(other, 'posts'));
    expect(posts).not.toBe(deploymentAlphabet(secrets));
  });

  it('SQIDS_PER_RESOURCE=0 (sqidsPerResource: false) keeps the one alphabet of earlier versions', () => {
    const legacy = deploymentCodecs(secrets, { sqidsMinLength: 8, sqidsPerResource: false });
    const before = new IdCodec(deploymentAlphabet(secrets), 8);
    for (const n of [0, 1, 42, 123_456_789]) {
      expect(legacy.of('posts').encode(n)).toBe(before.encode(n));
      expect(legacy.of('users').encode(n)).toBe(before.encode(n));
    }
    const load = (env: Record<string, string>) => loadConfig({ env, sessionSecret: 'x'.repeat(40) });
    expect(load({}).sqidsPerResource).toBe(true);
    expect(load({ SQIDS_PER_RESOURCE: '0' }).sqidsPerResource).toBe(false);
  });
});

describe('per-resource ids on the blog API', () => {
  let t: BlogApp;
  let postIds: number[];
  let commentIds: number[];
  let userId: number;
  beforeAll(async () => {
    t = await startBlogApp();
    const user = await t.createUser({ username: 'sqids owner' });
    userId = user.id;
    postIds = await insertPosts(t, user, [
      { title: 'First', status: 'published' },
      { title: 'Second', status: 'published' },
    ]);
    await insertComments(t, postIds[0]!, 3);
    const rows = await t.db.selectFrom('comments').select('id').orderBy('id').execute();
    commentIds = rows.map((row: { id: number | string }) => Number(row.id));
  });
  afterAll(async () => t?.close());

  it('gives a post, a comment and a user with the same raw id different public ids', () => {
    const n = 1;
    const ids = new Set([publicId(t, n, 'posts'), publicId(t, n, 'comments'), publicId(t, n, 'users')]);
    expect(ids.size).toBe(3);
  });

  it("refuses one resource's id on another (404), and accepts it on its own", async () => {
    const client = t.client();
    // The comment whose raw id is a post's raw id, addressed with the post's public id.
    const shared = commentIds.find((id) => postIds.includes(id)) ?? postIds[0]!;
    const postPublic = publicId(t, shared, 'posts');
    expect((await client.get(`/api/v1/posts/${postPublic}`)).status).toBe(200);
    const crossed = await client.get(`/api/v1/comments/${postPublic}`);
    expect(crossed.status).toBe(404);
    // And the other way round, for every comment.
    for (const id of commentIds) {
      const commentPublic = publicId(t, id, 'comments');
      expect((await client.get(`/api/v1/comments/${commentPublic}`)).status).toBe(200);
      expect((await client.get(`/api/v1/posts/${commentPublic}`)).status).toBe(404);
    }
    // A post id is not a comment's id in a filter or a payload either.
    const filter = await client.get(`/api/v1/comments?post_id=${publicId(t, postIds[0]!, 'comments')}`);
    expect(filter.status).toBe(400);
  });

  it('encodes a foreign key in the space of the table it points at', async () => {
    const list = await t.client().get(`/api/v1/comments?post_id=${publicId(t, postIds[0]!)}`);
    expect(list.status).toBe(200);
    expect(list.body.data.length).toBe(3);
    for (const comment of list.body.data) {
      expect(comment.post_id).toBe(publicId(t, postIds[0]!, 'posts'));
      expect(commentIds.map((id) => publicId(t, id, 'comments'))).toContain(comment.id);
    }
  });

  it("a user's own raw id and its public form reveal nothing about post ids", async () => {
    const session = await t.signIn((await t.services.users.findById(userId))!);
    const me = await session.get('/me');
    expect(me.body.user.id).toBe(userId);
    const posts = await session.get('/api/v1/posts?derive=author');
    const authorId = posts.body.data[0].author.id as string;
    // The author's id is in the users space: the raw id from /me does not produce post ids.
    expect(authorId).toBe(publicId(t, userId, 'users'));
    expect(authorId).not.toBe(publicId(t, userId, 'posts'));
    for (const post of posts.body.data)
      expect(post.id).not.toBe(new IdCodec(deploymentAlphabet(t.services.secrets), 8).encode(userId));
  });
});
