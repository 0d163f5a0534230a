import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi, defineResource } from '../../src/index.ts';
import type { HookContext, ResourceQuery } from '../../src/api/resource/types.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { testDialect } from '../support/databases.ts';
import { specimenMigrations, specimens } from './fixtures/specimens.ts';
import { MAX_STATEMENTS_PER_RESOURCE } from '../../src/api/read/statements.ts';

/*
 * `beforeQueryReads: 'caller'` says a resource's beforeQuery reads only who the caller is: the
 * engine then runs the hook and compiles a single read, and a plain list (no filter, search or
 * cursor) per sort and `fields`, once for every anonymous caller and once per signed-in caller.
 * What each caller sees must not change: anonymous callers see the hook's rows only, a signed-in
 * caller their own (never another caller's statement), and a resource that does not say so runs
 * its hook on every read.
 */
const calls = { cached: 0, perRequest: 0 };

/** Anonymous callers see rows with i < 10; a user named `limited…` i < 20; other users every row. */
function visible(query: ResourceQuery, ctx: HookContext): ResourceQuery {
  if (!ctx.user) return query.where('specimens.i', '<', 10);
  return ctx.user.username.startsWith('limited') ? query.where('specimens.i', '<', 20) : query;
}

const base = { ...specimens, relations: {}, allowedRelations: [] };
const cached = defineResource({
  ...base,
  name: 'cached',
  table: 'specimens',
  beforeQueryReads: 'caller',
  hooks: {
    beforeQuery(query, ctx) {
      calls.cached++;
      return visible(query, ctx);
    },
  },
});
const perRequest = defineResource({
  ...base,
  name: 'per_request',
  table: 'specimens',
  hooks: {
    beforeQuery(query, ctx) {
      calls.perRequest++;
      // Reads the request: the engine may not keep its query.
      return ctx.request.headers['x-show-all'] === 'yes' ? query : visible(query, ctx);
    },
  },
});
const api = createApi({ apiName: 'Statements', resources: [cached, perRequest] }).publish({ version: 'v1' });

const row = (i: number) => ({
  i,
  big: '1',
  num: 1.5,
  dec: '1.5',
  flag: true,
  str: `row ${i}`,
  txt: 'text',
  day: '2026-01-31',
  at: '2026-01-31T12:00:00.000Z',
  doc: null,
  note: null,
});

describe(`an anonymous single read compiled once, on ${testDialect()}`, () => {
  let t: TestApp;
  let shown: string;
  let hidden: string;
  beforeAll(async () => {
    t = await startTestApp({ api, migrations: specimenMigrations });
    const writer = await t.signIn(await t.createUser({ username: 'writer' }));
    const ids: string[] = [];
    for (const i of [5, 50]) {
      const created = await writer.post('/api/v1/cached', row(i));
      expect(created.status, created.text).toBe(201);
      ids.push(String(created.body.data.id));
    }
    [shown, hidden] = ids as [string, string];
  });
  afterAll(async () => t?.close());

  it('anonymous reads run the hook once and still see only its rows', async () => {
    const before = calls.cached;
    for (let round = 0; round < 5; round++) {
      const seen = await t.client().get(`/api/v1/cached/${shown}`);
      expect(seen.status).toBe(200);
      expect(seen.body.data.i).toBe(5);
      expect((await t.client().get(`/api/v1/cached/${hidden}`)).status).toBe(404);
    }
    // Concurrent first reads may each compile it; after that, none does.
    expect(calls.cached - before).toBeLessThanOrEqual(1);
    const list = await t.client().get('/api/v1/cached');
    expect(list.body.data.map((record: { i: number }) => record.i)).toEqual([5]);
  });

  it("a signed-in caller gets a statement of their own, compiled once, and never another caller's", async () => {
    const reader = await t.signIn(await t.createUser({ username: 'reader' }));
    const limited = await t.signIn(await t.createUser({ username: 'limited_reader' }));
    const before = calls.cached;
    for (let round = 0; round < 3; round++) {
      const seen = await reader.get(`/api/v1/cached/${hidden}`);
      expect(seen.status).toBe(200);
      expect(seen.body.data.i).toBe(50);
      // The other user's hook answer hides the row (i < 20), before and after the reader's.
      expect((await limited.get(`/api/v1/cached/${hidden}`)).status).toBe(404);
      expect((await limited.get(`/api/v1/cached/${shown}`)).status).toBe(200);
    }
    // Once per caller.
    expect(calls.cached - before).toBe(2);
    // And the anonymous statement was not replaced by a signed-in one.
    expect((await t.client().get(`/api/v1/cached/${hidden}`)).status).toBe(404);
  });

  it('a caller whose user changes (what the hook reads) gets a new statement', async () => {
    const user = await t.createUser({ username: 'limited_then_not' });
    const session = await t.signIn(user);
    expect((await session.get(`/api/v1/cached/${hidden}`)).status).toBe(404);
    await t.services.db
      .updateTable('users')
      .set({ username: 'plain_reader' })
      .where('id', '=', user.id)
      .execute();
    const seen = await session.get(`/api/v1/cached/${hidden}`);
    expect(seen.status).toBe(200);
    expect(seen.body.data.i).toBe(50);
  });

  it('without the declaration the hook runs on every read, and may read the request', async () => {
    const before = calls.perRequest;
    expect((await t.client().get(`/api/v1/per_request/${hidden}`)).status).toBe(404);
    const all = await t.app.inject({
      method: 'GET',
      url: `/api/v1/per_request/${hidden}`,
      headers: { accept: 'application/json', 'x-show-all': 'yes' },
    });
    expect(all.statusCode).toBe(200);
    expect((await t.client().get(`/api/v1/per_request/${hidden}`)).status).toBe(404);
    expect(calls.perRequest - before).toBe(3);
  });

  it('concurrent anonymous reads agree with the hook', async () => {
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => t.client().get(`/api/v1/cached/${i % 2 ? hidden : shown}`)),
    );
    answers.forEach((answer, i) => expect(answer.status).toBe(i % 2 ? 404 : 200));
  });
});

describe(`anonymous plain lists compiled once per sort and fields, on ${testDialect()}`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ api, migrations: specimenMigrations });
    const writer = await t.signIn(await t.createUser({ username: 'writer' }));
    // i = 0..13 (anonymous callers see 0..9), str in another order than i.
    for (let i = 0; i < 14; i++) {
      const created = await writer.post('/api/v1/cached', { ...row(i), str: `row ${(i * 7) % 14}` });
      expect(created.status, created.text).toBe(201);
    }
  });
  afterAll(async () => t?.close());

  /** What a list answer shows, without what differs by resource name (ids, cursors). */
  async function listed(resource: string, query: string, client = t.client()) {
    const answer = await client.get(`/api/v1/${resource}?${query}`);
    expect(answer.status, `${resource}?${query}: ${answer.text}`).toBe(200);
    const { nextCursor, ...pagination } = answer.body.pagination;
    return {
      rows: answer.body.data.map(({ id, ...rest }: { id: unknown }) => ({
        ...rest,
        hasId: id !== undefined,
      })),
      pagination,
      hasCursor: nextCursor !== null,
    };
  }

  it('answer as the per-request list does, for any page, limit, sort, fields and count', async () => {
    const before = calls.cached;
    const seen = new Set<string>();
    const query = fc.record({
      page: fc.integer({ min: 1, max: 6 }),
      limit: fc.integer({ min: 1, max: 6 }),
      sort: fc.constantFrom('', 'i', '-i', 'str', '-str,i', 'flag,-i'),
      fields: fc.constantFrom('', 'i', 'i,str', 'str,flag,i'),
      count: fc.constantFrom('', 'exact', 'none'),
    });
    await fc.assert(
      fc.asyncProperty(query, async ({ page, limit, sort, fields, count }) => {
        const text = [
          `page=${page}`,
          `limit=${limit}`,
          sort && `sort=${sort}`,
          fields && `fields=${fields}`,
          count && `count=${count}`,
        ]
          .filter(Boolean)
          .join('&');
        seen.add(`${sort} ${fields}`);
        expect(await listed('cached', text)).toEqual(await listed('per_request', text));
      }),
      { numRuns: 60 },
    );
    // One compilation per sort and fields, whatever the page, limit and count.
    expect(calls.cached - before).toBe(seen.size);
  });

  it('a signed-in caller lists every row, before and after anonymous lists of the same shape', async () => {
    const reader = await t.signIn(await t.createUser({ username: 'reader' }));
    const anonymous = await listed('cached', 'sort=i&limit=50');
    expect(anonymous.rows.map((record: { i: number }) => record.i)).toEqual([...Array(10).keys()]);
    expect(anonymous.pagination.total).toBe(10);
    const signedIn = await listed('cached', 'sort=i&limit=50', reader);
    expect(signedIn.rows).toHaveLength(14);
    expect(signedIn.pagination.total).toBe(14);
    expect((await listed('cached', 'sort=i&limit=50')).pagination.total).toBe(10);
  });

  it('filters, a search or a cursor build the list per request', async () => {
    const before = calls.cached;
    const filtered = await listed('cached', 'filter[i][gt]=7&sort=i');
    expect(filtered.rows.map((record: { i: number }) => record.i)).toEqual([8, 9]);
    const first = await t.client().get('/api/v1/cached?sort=i&limit=4');
    const next = await t
      .client()
      .get(`/api/v1/cached?sort=i&limit=4&cursor=${encodeURIComponent(first.body.pagination.nextCursor)}`);
    expect(next.body.data.map((record: { i: number }) => record.i)).toEqual([4, 5, 6, 7]);
    // The filtered list and the cursor's page ran the hook; the first page (seen before) did not.
    expect(calls.cached - before).toBe(2);
  });

  it('a cursor of a list filtered by a bigint column opens the next page', async () => {
    const first = await t.client().get('/api/v1/cached?filter[big][eq]=1&sort=i&limit=3');
    expect(first.body.data.map((record: { i: number }) => record.i)).toEqual([0, 1, 2]);
    const cursor = encodeURIComponent(first.body.pagination.nextCursor);
    const next = await t.client().get(`/api/v1/cached?filter[big][eq]=1&sort=i&limit=3&cursor=${cursor}`);
    expect(next.body.data.map((record: { i: number }) => record.i)).toEqual([3, 4, 5]);
    const other = await t.client().get(`/api/v1/cached?filter[big][eq]=2&sort=i&limit=3&cursor=${cursor}`);
    expect(other.status).toBe(400);
  });

  it(`keeps at most ${MAX_STATEMENTS_PER_RESOURCE} statements per resource, and answers past that too`, async () => {
    // Each (sort, fields) shape keeps two statements (page and count): 40 new shapes overfill the store.
    const columns = ['i', 'str', 'flag', 'num', 'day', 'at', 'txt', 'big'];
    const shapes = columns.flatMap((column) =>
      ['i', '-i', 'str', '-str', 'flag'].map((sort) => `sort=${sort}&fields=${column},i&limit=3`),
    );
    expect(shapes.length * 2).toBeGreaterThan(MAX_STATEMENTS_PER_RESOURCE);
    const kept: boolean[] = [];
    for (const shape of shapes) {
      expect((await listed('cached', shape)).pagination.total, shape).toBe(10);
      // Asked again: a kept statement runs no hook, one built per request runs it again.
      const before = calls.cached;
      expect((await listed('cached', shape)).pagination.total, shape).toBe(10);
      kept.push(calls.cached === before);
    }
    // The first shapes were kept until the store was full, none after.
    const firstBuilt = kept.indexOf(false);
    expect(firstBuilt).toBeGreaterThan(0);
    expect(kept.slice(firstBuilt).every((wasKept) => !wasKept)).toBe(true);
  });
});
