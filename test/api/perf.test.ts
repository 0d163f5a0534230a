import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idColumn } from '../../src/db/columns.ts';
import { createApi, defineResource, type CitadelMigration } from '../../src/index.ts';
import { compileApi } from '../../src/api/resource/compile.ts';
import { itemStatement } from '../../src/api/read/read.ts';
import type { UserRecord } from '../../src/auth/core/users.ts';
import type { TestClient } from '../support/client.ts';
import type { TestApp } from '../support/app.ts';
import {
  insertComments,
  insertPosts,
  publicId,
  startApiApp,
  startBlogApp,
  type BlogApp,
} from '../support/api-app.ts';

describe('demo comment visibility (correlated EXISTS on the post key)', () => {
  let t: BlogApp;
  let alice: UserRecord;
  let bob: UserRecord;
  let aliceSession: TestClient;
  let bobSession: TestClient;
  let ids: number[];
  beforeAll(async () => {
    t = await startBlogApp({ countQueries: true });
    alice = await t.createUser({ username: 'alice perf' });
    bob = await t.createUser({ username: 'bob perf' });
    // alice: one published post and one draft; bob: one draft. Two comments each.
    ids = [
      ...(await insertPosts(t, alice, [{ status: 'published' }, { status: 'draft' }])),
      ...(await insertPosts(t, bob, [{ status: 'draft' }])),
    ];
    for (const id of ids) await insertComments(t, id, 2);
    aliceSession = await t.signIn(alice);
    bobSession = await t.signIn(bob);
  });
  afterAll(async () => t?.close());

  const postIdsSeen = async (client: TestClient) => {
    const response = await client.get('/api/v1/comments?limit=100');
    expect(response.status).toBe(200);
    return response.body.data.map((comment: { post_id: string }) => comment.post_id).sort();
  };

  it('anonymous callers see comments of published posts, signed-in callers also of their drafts', async () => {
    const [published, aliceDraft, bobDraft] = ids.map((id) => publicId(t, id));
    expect(await postIdsSeen(t.client())).toEqual([published, published]);
    expect(await postIdsSeen(aliceSession)).toEqual([published, published, aliceDraft, aliceDraft].sort());
    expect(await postIdsSeen(bobSession)).toEqual([published, published, bobDraft, bobDraft].sort());
    // The total counts the same rows as the page.
    const anonymous = await t.client().get('/api/v1/comments?limit=1');
    expect(anonymous.body.pagination.total).toBe(2);
  });

  it('writes reach only the comments on the caller’s own posts', async () => {
    const bobs = (await bobSession.get('/api/v1/comments?limit=100')).body.data;
    const onAlicesPost = bobs.find((c: { post_id: string }) => c.post_id === publicId(t, ids[0]!));
    expect((await bobSession.delete(`/api/v1/comments/${onAlicesPost.id}`)).status).toBe(404);
    expect((await aliceSession.delete(`/api/v1/comments/${onAlicesPost.id}`)).status).toBe(200);
  });

  it('checks each comment against its own post instead of collecting every visible post id', async () => {
    t.queries.length = 0;
    await t.client().get('/api/v1/comments?limit=5');
    await t.client().get('/api/v1/posts?derive=comments&limit=5');
    const commentQueries = t.queries.filter((sql) => /from\s+[`"]?comments/i.test(sql));
    expect(commentQueries.length).toBeGreaterThanOrEqual(3);
    for (const sql of commentQueries) {
      expect(sql).toMatch(/exists\s*\(\s*select/i);
      expect(sql).not.toMatch(/in\s*\(\s*select/i);
    }
  });

  it('names the columns unqualified when a read has one table (a shorter statement to parse)', async () => {
    t.queries.length = 0;
    expect((await t.client().get(`/api/v1/posts/${publicId(t, ids[0]!)}`)).status).toBe(200);
    expect((await t.client().get('/api/v1/posts?limit=2')).status).toBe(200);
    const reads = t.queries.filter((sql) => /from\s+[`"]?posts/i.test(sql) && !/count\(/i.test(sql));
    expect(reads).toHaveLength(2);
    for (const sql of reads) expect(sql).toMatch(/^select\s+[`"]id[`"],\s*[`"]title[`"]/i);
  });
});

// Two views of one table: without hooks (the single read is compiled once) and with a
// pass-through beforeQuery (built per request). Both must answer alike.
const gadgetsMigration: CitadelMigration = {
  name: '0491_test_gadgets',
  async up(db, dialect) {
    await idColumn(db.schema.createTable('gadgets'), dialect)
      .addColumn('name', 'varchar(100)', (c) => c.notNull())
      .addColumn('price', 'integer', (c) => c.notNull())
      .addColumn('active', 'integer', (c) => c.notNull())
      .execute();
    await idColumn(db.schema.createTable('gadget_parts'), dialect)
      .addColumn('gadget_id', 'integer', (c) => c.notNull().references('gadgets.id'))
      .addColumn('label', 'varchar(100)', (c) => c.notNull())
      .execute();
  },
};

const columns = {
  id: { type: 'integer', readOnly: true },
  name: { type: 'string' },
  price: { type: 'integer' },
  active: { type: 'boolean' },
} as const;

const gadgets = defineResource({
  name: 'gadgets',
  columns,
  obfuscatedFields: ['id'],
  relations: { parts: { type: 'hasMany', resource: 'gadget_parts', foreignKey: 'gadget_id' } },
  allowedRelations: ['parts'],
});

const gadgetParts = defineResource({
  name: 'gadget_parts',
  columns: {
    id: { type: 'integer', readOnly: true },
    gadget_id: { type: 'integer' },
    label: { type: 'string' },
  },
  obfuscatedFields: ['id', 'gadget_id'],
});

const hookedGadgets = defineResource({
  name: 'hooked_gadgets',
  table: 'gadgets',
  columns,
  obfuscatedFields: ['id'],
  relations: { parts: { type: 'hasMany', resource: 'gadget_parts', foreignKey: 'gadget_id' } },
  allowedRelations: ['parts'],
  hooks: { beforeQuery: (query) => query },
});

// A hook that joins a table with columns of the same names (`id`): the select list must stay qualified.
const joinedGadgets = defineResource({
  name: 'joined_gadgets',
  table: 'gadgets',
  columns,
  obfuscatedFields: ['id'],
  hooks: {
    beforeQuery: (query) =>
      query
        .innerJoin('gadget_parts', 'gadget_parts.gadget_id', 'gadgets.id')
        .where('gadget_parts.label', 'like', 'part a of%'),
  },
});

const gadgetApi = createApi({
  apiName: 'Gadgets',
  resources: [gadgets, gadgetParts, hookedGadgets, joinedGadgets],
}).publish({ version: 'v1' });

describe('single reads of a resource without hooks: compiled once, executed with each id', () => {
  let t: TestApp;
  const rawIds: number[] = [];
  beforeAll(async () => {
    t = await startApiApp(gadgetApi, [gadgetsMigration]);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- test tables are not in the core schema
    const db = t.services.db as any;
    for (let i = 1; i <= 5; i++) {
      await db
        .insertInto('gadgets')
        .values({ name: `Gadget ${i}`, price: i * 100, active: i % 2 })
        .execute();
      const row = await db
        .selectFrom('gadgets')
        .select('id')
        .orderBy('id', 'desc')
        .limit(1)
        .executeTakeFirst();
      rawIds.push(Number(row.id));
      await db
        .insertInto('gadget_parts')
        .values([
          { gadget_id: row.id, label: `part a of ${i}` },
          { gadget_id: row.id, label: `part b of ${i}` },
        ])
        .execute();
    }
  });
  afterAll(async () => t?.close());

  it('answers each id with its own row, converted, as the per-request path does', async () => {
    const client = t.client();
    for (const [index, raw] of rawIds.entries()) {
      const id = publicId(t, raw, 'gadgets');
      const fast = await client.get(`/api/v1/gadgets/${id}?derive=parts`);
      expect(fast.status).toBe(200);
      expect(fast.body.data).toMatchObject({
        id,
        name: `Gadget ${index + 1}`,
        price: (index + 1) * 100,
        active: (index + 1) % 2 === 1,
      });
      expect(fast.body.data.parts.map((part: { label: string }) => part.label)).toEqual([
        `part a of ${index + 1}`,
        `part b of ${index + 1}`,
      ]);
      const built = await client.get(`/api/v1/hooked_gadgets/${id}?derive=parts`);
      expect(built.status).toBe(200);
      expect(fast.body).toEqual(built.body);
    }
  });

  it('a missing id is a 404 after other ids were read', async () => {
    const missing = publicId(t, rawIds.at(-1)! + 1000, 'gadgets');
    expect((await t.client().get(`/api/v1/gadgets/${missing}`)).status).toBe(404);
    expect((await t.client().get(`/api/v1/gadgets/${publicId(t, rawIds[0]!, 'gadgets')}`)).status).toBe(200);
  });

  it('qualifies the columns when a hook joins a table with the same column names', async () => {
    const list = await t.client().get('/api/v1/joined_gadgets?sort=price');
    expect(list.status).toBe(200);
    expect(list.body.data.map((g: { id: string; price: number }) => [g.id, g.price])).toEqual(
      rawIds.map((raw, index) => [publicId(t, raw, 'gadgets'), (index + 1) * 100]),
    );
    const one = await t.client().get(`/api/v1/joined_gadgets/${publicId(t, rawIds[2]!, 'gadgets')}`);
    expect(one.status).toBe(200);
    expect(one.body.data).toMatchObject({ id: publicId(t, rawIds[2]!, 'gadgets'), name: 'Gadget 3' });
  });

  it('keeps one compiled statement per resource and database, and none for hooked resources', () => {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- test tables are not in the core schema
    const db = t.services.db as any;
    const compiled = compileApi(gadgetApi, t.services.dialect);
    const first = itemStatement(compiled.get('gadgets')!, db);
    expect(first?.parameters).toHaveLength(1);
    expect(first?.sql).toMatch(/where/i);
    expect(itemStatement(compiled.get('gadgets')!, db)).toBe(first);
    expect(itemStatement(compiled.get('hooked_gadgets')!, db)).toBeNull();
  });
});
