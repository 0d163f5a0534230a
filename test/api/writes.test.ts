import { Type } from '@sinclair/typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idColumn } from '../../src/db/columns.ts';
import { createApi, defineResource, HttpError, type CitadelMigration } from '../../src/index.ts';
import type { UserRecord } from '../../src/auth/core/users.ts';
import type { TestClient } from '../support/client.ts';
import type { TestApp } from '../support/app.ts';
import {
  countRows,
  insertPosts,
  publicId,
  startApiApp,
  startBlogApp,
  type BlogApp,
} from '../support/api-app.ts';

const post = (title: string) => ({ title, body: `Body of ${title}` });

describe('resource API writes on the blog', () => {
  let t: BlogApp;
  let user: UserRecord;
  let session: TestClient;
  beforeAll(async () => {
    t = await startBlogApp();
    user = await t.createUser({ username: 'writer one' });
    session = await t.signIn(user);
  });
  afterAll(async () => t?.close());

  it('creates one post: 201, the caller as author, defaults and timestamps filled', async () => {
    const response = await session.post('/api/v1/posts', post('First post'));
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      status: 'success',
      data: {
        id: expect.any(String),
        title: 'First post',
        body: 'Body of First post',
        status: 'draft',
        pinned: false,
        tags: [],
        created_at: t.clock.now().toISOString(),
        updated_at: t.clock.now().toISOString(),
      },
    });
    const read = await session.get(`/api/v1/posts/${response.body.data.id}?derive=author`);
    expect(read.body.data.author.username).toBe('writer one');
    expect(read.body.data.excerpt).toBe('Body of First post');
  });

  it('rejects unknown fields and fields a client may not set (no mass assignment)', async () => {
    const before = await countRows(t, 'posts');
    for (const [extra, name] of [
      [{ author_id: 999 }, 'author_id'],
      [{ id: 5 }, 'id'],
      [{ created_at: '2020-01-01T00:00:00.000Z' }, 'created_at'],
      [{ is_admin: true }, 'is_admin'],
    ] as const) {
      const response = await session.post('/api/v1/posts', { ...post('Sneaky'), ...extra });
      expect(response.status).toBe(422);
      expect(response.body.invalid_params).toEqual([{ name, reason: expect.any(String) }]);
    }
    expect(await countRows(t, 'posts')).toBe(before);
  });

  it('validates per verb: 422 with one reason per payload path', async () => {
    const response = await session.post('/api/v1/posts', { title: 'ab', status: 'archived' });
    expect(response.status).toBe(422);
    expect(response.headers['content-type']).toContain('application/problem+json');
    const names = response.body.invalid_params.map((p: { name: string }) => p.name).sort();
    expect(names).toEqual(['body', 'status', 'title']);
  });

  it('creates a bulk array in order, all in one answer', async () => {
    const response = await session.post('/api/v1/posts', [
      post('Bulk one'),
      post('Bulk two'),
      post('Bulk three'),
    ]);
    expect(response.status).toBe(201);
    expect(response.body.data.map((p: { title: string }) => p.title)).toEqual([
      'Bulk one',
      'Bulk two',
      'Bulk three',
    ]);
    expect(new Set(response.body.data.map((p: { id: string }) => p.id)).size).toBe(3);
  });

  it('writes nothing when the third item of a bulk create fails validation', async () => {
    const before = await countRows(t, 'posts');
    const response = await session.post('/api/v1/posts', [
      post('Good one'),
      post('Good two'),
      { title: 'x' },
      post('Good four'),
    ]);
    expect(response.status).toBe(422);
    expect(response.body.invalid_params.map((p: { name: string }) => p.name).sort()).toEqual([
      '[2].body',
      '[2].title',
    ]);
    expect(await countRows(t, 'posts')).toBe(before);
  });

  it('refuses an empty array (422) and more than 1000 items (413), writing nothing', async () => {
    const before = await countRows(t, 'posts');
    expect((await session.post('/api/v1/posts', [])).status).toBe(422);
    const tooMany = await session.post(
      '/api/v1/posts',
      Array.from({ length: 1001 }, (_, i) => post(`Many ${i}`)),
    );
    expect(tooMany.status).toBe(413);
    expect(tooMany.headers['content-type']).toContain('application/problem+json');
    expect(await countRows(t, 'posts')).toBe(before);
    const nestedTooMany = await session.post('/api/v1/posts', {
      ...post('Many comments'),
      comments: Array.from({ length: 1001 }, () => ({ author_name: 'a', body: 'b' })),
    });
    expect(nestedTooMany.status).toBe(413);
  });

  it('creates a post with nested comments, the foreign key from the parent', async () => {
    const response = await session.post('/api/v1/posts', {
      ...post('With comments'),
      comments: [
        { author_name: 'Ann', body: 'First!' },
        { author_name: 'Bob', body: 'Second.' },
      ],
    });
    expect(response.status).toBe(201);
    const created = response.body.data;
    expect(created.comments).toHaveLength(2);
    expect(created.comments.map((c: { author_name: string }) => c.author_name)).toEqual(['Ann', 'Bob']);
    for (const comment of created.comments) expect(comment.post_id).toBe(created.id);
    const read = await session.get(`/api/v1/posts/${created.id}?derive=comments`);
    expect(read.body.data.comments.map((c: { body: string }) => c.body)).toEqual(['First!', 'Second.']);
  });

  it('writes nothing when one nested comment is invalid, naming its path', async () => {
    const posts = await countRows(t, 'posts');
    const comments = await countRows(t, 'comments');
    const response = await session.post('/api/v1/posts', {
      ...post('Nested failure'),
      comments: [
        { author_name: 'Ann', body: 'Fine' },
        { author_name: 'Bob', body: '' },
      ],
    });
    expect(response.status).toBe(422);
    expect(response.body.invalid_params).toEqual([{ name: 'comments[1].body', reason: expect.any(String) }]);
    const bulk = await session.post('/api/v1/posts', [
      post('Bulk nested ok'),
      { ...post('Bulk nested bad'), comments: [{ author_name: 'x'.repeat(101), body: 'b' }] },
    ]);
    expect(bulk.status).toBe(422);
    expect(bulk.body.invalid_params).toEqual([
      { name: '[1].comments[0].author_name', reason: expect.any(String) },
    ]);
    const withKey = await session.post('/api/v1/posts', {
      ...post('Key given'),
      comments: [{ post_id: 'abc', author_name: 'a', body: 'b' }],
    });
    expect(withKey.status).toBe(422);
    expect(withKey.body.invalid_params).toEqual([
      { name: 'comments[0].post_id', reason: expect.any(String) },
    ]);
    expect(await countRows(t, 'posts')).toBe(posts);
    expect(await countRows(t, 'comments')).toBe(comments);
  });

  it('refuses (422, nothing written) a comment on a post the caller cannot see: the comments hook', async () => {
    const other = await t.createUser();
    const [draftId] = await insertPosts(t, other, [{ status: 'draft' }]);
    const before = await countRows(t, 'comments');
    const response = await session.post('/api/v1/comments', {
      post_id: publicId(t, draftId!),
      author_name: 'Eve',
      body: 'hi',
    });
    expect(response.status).toBe(422);
    expect(response.body.invalid_params).toEqual([{ name: 'post_id', reason: expect.any(String) }]);
    expect(await countRows(t, 'comments')).toBe(before);
    const mine = await insertPosts(t, user, [{ status: 'draft' }]);
    const own = await session.post('/api/v1/comments', {
      post_id: publicId(t, mine[0]!),
      author_name: 'Me',
      body: 'ok',
    });
    expect(own.status).toBe(201);
  });

  it('PUT replaces all writable fields, PATCH only those given; updated_at follows the clock', async () => {
    const created = (await session.post('/api/v1/posts', post('Editable'))).body.data;
    t.clock.advance(60);
    const incomplete = await session.put(`/api/v1/posts/${created.id}`, { title: 'Only a title' });
    expect(incomplete.status).toBe(422);
    const put = await session.put(`/api/v1/posts/${created.id}`, {
      title: 'Replaced',
      body: 'New body',
      status: 'published',
    });
    expect(put.status).toBe(200);
    expect(put.body.data).toMatchObject({
      id: created.id,
      title: 'Replaced',
      body: 'New body',
      status: 'published',
    });
    expect(put.body.data.updated_at).toBe(t.clock.now().toISOString());
    expect(put.body.data.created_at).toBe(created.created_at);
    t.clock.advance(60);
    const patch = await session.patch(`/api/v1/posts/${created.id}`, { status: 'draft' });
    expect(patch.status).toBe(200);
    expect(patch.body.data).toMatchObject({ title: 'Replaced', body: 'New body', status: 'draft' });
    expect(patch.body.data.updated_at).toBe(t.clock.now().toISOString());
    const unknown = await session.patch(`/api/v1/posts/${created.id}`, { author_id: 1 });
    expect(unknown.status).toBe(422);
  });

  it('PUT/PATCH/DELETE reach only the caller’s own posts (404 otherwise)', async () => {
    const other = await t.signIn(await t.createUser());
    const theirs = (await other.post('/api/v1/posts', { ...post('Theirs'), status: 'published' })).body.data;
    expect((await session.get(`/api/v1/posts/${theirs.id}`)).status).toBe(200);
    expect((await session.patch(`/api/v1/posts/${theirs.id}`, { title: 'Hijacked' })).status).toBe(404);
    expect(
      (await session.put(`/api/v1/posts/${theirs.id}`, { title: 'Hijacked', body: 'x', status: 'draft' }))
        .status,
    ).toBe(404);
    expect((await session.delete(`/api/v1/posts/${theirs.id}`)).status).toBe(404);
    expect((await other.get(`/api/v1/posts/${theirs.id}`)).body.data.title).toBe('Theirs');
  });

  it('DELETE answers {id} and removes the record with its comments', async () => {
    const created = (
      await session.post('/api/v1/posts', { ...post('Doomed'), comments: [{ author_name: 'a', body: 'b' }] })
    ).body.data;
    const comments = await countRows(t, 'comments');
    const response = await session.delete(`/api/v1/posts/${created.id}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ status: 'success', data: { id: created.id } });
    expect((await session.get(`/api/v1/posts/${created.id}`)).status).toBe(404);
    expect(await countRows(t, 'comments')).toBe(comments - 1);
    expect((await session.delete(`/api/v1/posts/${created.id}`)).status).toBe(404);
  });

  it('answers 405 for a write verb without a validator, and for a body that is not JSON 400', async () => {
    const comment = (
      await session.post('/api/v1/comments', {
        post_id: (await session.post('/api/v1/posts', { ...post('For 405'), status: 'published' })).body.data
          .id,
        author_name: 'a',
        body: 'b',
      })
    ).body.data;
    const put = await session.put(`/api/v1/comments/${comment.id}`, { author_name: 'x', body: 'y' });
    expect(put.status).toBe(405);
    // Comments have a patch validator (moderation, and nested updates through the post), no put one.
    expect(put.headers.allow).toBe('GET, HEAD, PATCH, DELETE, OPTIONS');
    const badJson = await session.request('POST', '/api/v1/posts', 'json', undefined, {
      headers: { 'content-type': 'application/json' },
    });
    // An empty JSON body is an empty object: a validation error, not a parse error.
    expect(badJson.status).toBe(422);
    const broken = await t.app.inject({
      method: 'POST',
      url: '/api/v1/posts',
      headers: {
        'content-type': 'application/json',
        cookie: [...session.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
      },
      payload: '{"title": ',
    });
    expect(broken.statusCode).toBe(400);
    expect(broken.headers['content-type']).toContain('application/problem+json');
    expect(broken.body).not.toMatch(/at .*\.(ts|js):\d+/);
  });
});

// A resource of its own for hooks and constraints: notes with a unique title.
const notesMigration: CitadelMigration = {
  name: '0490_test_notes',
  async up(db, dialect) {
    await idColumn(db.schema.createTable('notes'), dialect)
      .addColumn('title', 'varchar(100)', (c) => c.notNull().unique())
      .addColumn('body', 'varchar(200)')
      .execute();
    await idColumn(db.schema.createTable('note_items'), dialect)
      .addColumn('note_id', 'integer', (c) => c.notNull().references('notes.id').onDelete('cascade'))
      .addColumn('text', 'varchar(100)', (c) => c.notNull())
      .execute();
    await idColumn(db.schema.createTable('tree_nodes'), dialect)
      .addColumn('parent_id', 'integer', (c) => c.references('tree_nodes.id').onDelete('cascade'))
      .addColumn('label', 'varchar(100)', (c) => c.notNull())
      .execute();
  },
};

const noteItems = defineResource({
  name: 'note_items',
  columns: {
    id: { type: 'integer', readOnly: true },
    note_id: { type: 'integer' },
    text: { type: 'string' },
  },
  formClass: { post: Type.Object({ note_id: Type.Integer(), text: Type.String() }) },
  requiredAuth: ['post'],
  hooks: {
    beforeSave(data) {
      if (data.text === 'boom') throw new HttpError(400, 'This item is refused.');
      return data;
    },
  },
});

// Children of their own kind: nesting is bounded.
const treeNodes = defineResource({
  name: 'tree_nodes',
  columns: {
    id: { type: 'integer', readOnly: true },
    parent_id: { type: 'integer', nullable: true },
    label: { type: 'string' },
  },
  relations: { children: { type: 'hasMany', resource: 'tree_nodes', foreignKey: 'parent_id' } },
  allowedRelations: ['children'],
  formClass: { post: Type.Object({ label: Type.String(), parent_id: Type.Optional(Type.Integer()) }) },
});

// Declared, but its table was never created: every query fails inside the database.
const ghosts = defineResource({
  name: 'ghosts',
  table: 'no_such_table',
  columns: { id: { type: 'integer', readOnly: true }, name: { type: 'string' } },
  formClass: { post: Type.Object({ name: Type.String() }) },
});

const notes = defineResource({
  name: 'notes',
  columns: {
    id: { type: 'integer', readOnly: true },
    title: { type: 'string' },
    body: { type: 'string', nullable: true },
  },
  exposedMethods: ['get', 'post', 'patch'],
  relations: { items: { type: 'hasMany', resource: 'note_items', foreignKey: 'note_id' } },
  allowedRelations: ['items'],
  formClass: {
    '*': Type.Object({ title: Type.String({ minLength: 1 }), body: Type.Optional(Type.String()) }),
  },
  hooks: {
    beforeSave(data) {
      if (data.title === 'teapot') throw new HttpError(418, 'Notes about teapots are refused.');
      if (data.title === 'crash') throw new Error('internal detail: SELECT secret FROM vault');
      // A hook may change the data in place and return nothing.
      if (data.body === 'shout') data.body = 'SHOUTED';
      else return data;
    },
    afterSave(record) {
      if (record.title === 'after-crash') throw new Error('failed after the insert');
      return record;
    },
  },
});

describe('resource API writes: hooks and constraints', () => {
  let t: TestApp;
  let client: TestClient;
  const notesCount = async () =>
    Number(
      (
        await (t.services.db as unknown as import('kysely').Kysely<{ notes: { id: number } }>)
          .selectFrom('notes')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  beforeAll(async () => {
    t = await startApiApp(
      createApi({ apiName: 'Notes', resources: [notes, noteItems, treeNodes, ghosts] }).publish({
        version: 'v1',
      }),
      [notesMigration],
    );
    client = t.client();
  });
  afterAll(async () => t?.close());

  it('a hook’s HttpError keeps its status and rolls back the whole bulk', async () => {
    const response = await client.post('/api/v1/notes', [
      { title: 'one' },
      { title: 'two' },
      { title: 'teapot' },
    ]);
    expect(response.status).toBe(418);
    expect(response.body.detail).toBe('Notes about teapots are refused.');
    expect(await notesCount()).toBe(0);
  });

  it('any other hook error is a generic 500 after rollback, leaking nothing', async () => {
    const response = await client.post('/api/v1/notes', [{ title: 'one' }, { title: 'crash' }]);
    expect(response.status).toBe(500);
    expect(response.text).not.toContain('SELECT');
    expect(response.text).not.toContain('internal detail');
    expect(response.body).toMatchObject({ status: 500, title: 'Internal Server Error' });
    const after = await client.post('/api/v1/notes', [{ title: 'three' }, { title: 'after-crash' }]);
    expect(after.status).toBe(500);
    expect(await notesCount()).toBe(0);
  });

  it('a nested child’s hook error rolls back its parent and the earlier items', async () => {
    const client = await t.signIn(await t.createUser());
    const response = await client.post('/api/v1/notes', [
      { title: 'parent one', items: [{ text: 'fine' }] },
      { title: 'parent two', items: [{ text: 'fine' }, { text: 'boom' }] },
    ]);
    expect(response.status).toBe(400);
    expect(await notesCount()).toBe(0);
    const ok = await client.post('/api/v1/notes', {
      title: 'parent three',
      items: [{ text: 'a' }, { text: 'b' }],
    });
    expect(ok.status).toBe(201);
    expect(ok.body.data.items.map((i: { text: string; note_id: number }) => [i.text, i.note_id])).toEqual([
      ['a', ok.body.data.id],
      ['b', ok.body.data.id],
    ]);
  });

  it('nested children need the child resource’s auth: 401 anonymous, 403 without its ability', async () => {
    const payload = { title: 'guarded parent', items: [{ text: 'child' }] };
    expect((await client.post('/api/v1/notes', payload)).status).toBe(401);
    const owner = await t.createUser();
    const issue = async (abilities: string[]) =>
      (
        await t.services.tokens.issue({
          userId: owner.id,
          name: abilities.join(),
          abilities,
          expiresAt: null,
        })
      ).token;
    const narrow = await client.post('/api/v1/notes', payload, 'json', {
      token: await issue(['notes:create']),
    });
    expect(narrow.status).toBe(403);
    expect(narrow.body.detail).toContain('note_items:create');
    expect(await notesCount()).toBe(1);
    const both = await client.post('/api/v1/notes', payload, 'json', {
      token: await issue(['notes:create', 'note_items:create']),
    });
    expect(both.status).toBe(201);
    expect(await notesCount()).toBe(2);
  });

  it('a unique violation is 409 (never 500) and rolls back the bulk', async () => {
    expect((await client.post('/api/v1/notes', { title: 'unique' })).status).toBe(201);
    const duplicate = await client.post('/api/v1/notes', { title: 'unique' });
    expect(duplicate.status).toBe(409);
    expect(duplicate.headers['content-type']).toContain('application/problem+json');
    expect(duplicate.text).not.toMatch(
      /insert into|UNIQUE constraint|SQLITE|Duplicate entry|duplicate key|notes_title/i,
    );
    const bulk = await client.post('/api/v1/notes', [{ title: 'fresh' }, { title: 'fresh' }]);
    expect(bulk.status).toBe(409);
    expect(await notesCount()).toBe(3);
    const created = await client.post('/api/v1/notes', { title: 'other' });
    const patch = await client.patch(`/api/v1/notes/${created.body.data.id}`, { title: 'unique' });
    expect(patch.status).toBe(409);
  });

  it('accepts five levels of nested children and refuses a sixth (422, nothing written)', async () => {
    const tree = (depth: number): Record<string, unknown> =>
      depth === 0 ? { label: 'leaf' } : { label: `level ${depth}`, children: [tree(depth - 1)] };
    const five = await client.post('/api/v1/tree_nodes', tree(5));
    expect(five.status).toBe(201);
    const six = await client.post('/api/v1/tree_nodes', tree(6));
    expect(six.status).toBe(422);
    expect(six.body.invalid_params).toEqual([
      {
        name: 'children[0].children[0].children[0].children[0].children[0].children',
        reason: expect.any(String),
      },
    ]);
    const listed = await client.get('/api/v1/tree_nodes?limit=100');
    expect(listed.body.pagination.total).toBe(6);
  });

  it('turns a database failure into a generic 500 problem: no SQL, no stack, no table name', async () => {
    for (const response of [
      await client.get('/api/v1/ghosts?search=x&sort=-name'),
      await client.get('/api/v1/ghosts/1'),
      await client.post('/api/v1/ghosts', { name: 'boo' }),
    ]) {
      expect(response.status).toBe(500);
      expect(response.headers['content-type']).toContain('application/problem+json');
      expect(response.body).toEqual({
        type: 'about:blank',
        title: 'Internal Server Error',
        status: 500,
        detail: expect.any(String),
        instance: expect.stringMatching(/^\/api\/v1\/ghosts/),
      });
      expect(response.text).not.toMatch(/no_such_table|select|insert|\.ts:\d+|at /i);
    }
  });

  it('keeps in-place changes of a hook that returns nothing', async () => {
    const response = await client.post('/api/v1/notes', { title: 'loud', body: 'shout' });
    expect(response.status).toBe(201);
    expect(response.body.data.body).toBe('SHOUTED');
  });

  it('answers 405 for verbs that are not exposed, with Allow', async () => {
    const created = await client.post('/api/v1/notes', { title: 'for-405' });
    const id = created.body.data.id;
    expect(typeof id).toBe('number'); // not obfuscated: raw ids are fine for this resource
    const del = await client.delete(`/api/v1/notes/${id}`);
    expect(del.status).toBe(405);
    expect(del.headers.allow).toBe('GET, HEAD, PATCH, OPTIONS');
    expect((await client.put(`/api/v1/notes/${id}`, { title: 'x' })).status).toBe(405);
    expect((await client.get(`/api/v1/notes/${id}`)).status).toBe(200);
  });
});
