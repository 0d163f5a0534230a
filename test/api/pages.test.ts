import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserRecord } from '../../src/auth/core/users.ts';
import { testDialect } from '../support/databases.ts';
import { specimenApi, specimenMigrations } from './fixtures/specimens.ts';
import {
  insertComments,
  insertPosts,
  startApiApp,
  startBlogApp,
  type ApiApp,
  type BlogApp,
} from '../support/api-app.ts';

/** Sparse fieldsets, count modes and keyset cursors (contract section 11). */
describe(`fields, count and cursors on ${testDialect()}`, () => {
  let t: BlogApp;
  let author: UserRecord;
  let ids: number[];
  beforeAll(async () => {
    t = await startBlogApp({ countQueries: true });
    author = await t.createUser();
    ids = await insertPosts(
      t,
      author,
      Array.from({ length: 25 }, (_, i) => ({ title: `Title ${i % 4}`, body: `Body text ${i}` })),
    );
    await insertPosts(t, author, [{ status: 'draft' }]);
    await insertComments(t, ids[0]!, 3);
  });
  afterAll(async () => t?.close());
  const get = (query: string) => t.client().get(`/api/v1/posts${query}`);
  const postStatements = () => t.queries.filter((q) => /from "?`?posts/i.test(q) && !/count\(/i.test(q));

  describe('fields', () => {
    it('reads only the columns asked for (and the keys), and shows them with the primary key', async () => {
      t.queries.length = 0;
      const response = await get('?fields=title&limit=3');
      expect(response.status).toBe(200);
      for (const record of response.body.data) expect(Object.keys(record).sort()).toEqual(['id', 'title']);
      const statement = postStatements().find((q) => /limit/i.test(q))!;
      expect(statement).toBeDefined();
      expect(statement).not.toMatch(/body/);
      expect(statement).not.toMatch(/created_at/);
    });

    it('keeps a computed field only when named, reading what it is made from', async () => {
      const plain = await get('?fields=id,title&limit=1');
      expect(plain.body.data[0]).not.toHaveProperty('excerpt');
      const withExcerpt = await get('?fields=excerpt&limit=1');
      expect(withExcerpt.status).toBe(200);
      expect(withExcerpt.body.data[0]).toEqual({ id: expect.any(String), excerpt: 'Body text 0' });
    });

    it('applies fields[relation] to a derived relation', async () => {
      t.queries.length = 0;
      const response = await get(
        `?derive=comments,author&fields=title&fields[comments]=body&fields[author]=username&limit=1`,
      );
      expect(response.status).toBe(200);
      const [post] = response.body.data;
      expect(Object.keys(post).sort()).toEqual(['author', 'comments', 'id', 'title']);
      expect(post.comments).toHaveLength(3);
      for (const comment of post.comments) expect(Object.keys(comment).sort()).toEqual(['body', 'id']);
      expect(Object.keys(post.author).sort()).toEqual(['id', 'username']);
      const commentRead = t.queries.find((q) => /from "?`?comments/i.test(q))!;
      expect(commentRead).not.toMatch(/author_name/);
    });

    it('works on a single read', async () => {
      const list = await get('?limit=1');
      const one = await t.client().get(`/api/v1/posts/${list.body.data[0].id}?fields=status`);
      expect(one.status).toBe(200);
      expect(Object.keys(one.body.data).sort()).toEqual(['id', 'status']);
    });

    it.each([
      ['?fields=nothing', 'fields'],
      ['?fields=author_id', 'fields'], // hidden
      ['?fields=', 'fields'],
      ['?fields=title,,id', 'fields'],
      ['?fields[comments]=body', 'fields[comments]'], // not derived
      ['?derive=comments&fields[comments]=post', 'fields[comments]'],
      ['?derive=author&fields[author]=email', 'fields[author]'],
    ])('refuses %s with 400 naming it', async (query, name) => {
      const response = await get(query);
      expect(response.status).toBe(400);
      expect(response.body.invalid_params[0].name).toBe(name);
    });
  });

  describe('count', () => {
    it('none: no total, hasMore read from one extra row, no count statement', async () => {
      t.queries.length = 0;
      const first = await get('?count=none&limit=10');
      expect(first.status).toBe(200);
      expect(first.body.pagination).toMatchObject({
        page: 1,
        total: null,
        totalPages: null,
        hasMore: true,
        nextPage: 2,
      });
      expect(t.queries.some((q) => /count\(/i.test(q))).toBe(false);
      const last = await get('?count=none&limit=10&page=3');
      expect(last.body.data).toHaveLength(5);
      expect(last.body.pagination).toMatchObject({
        total: null,
        hasMore: false,
        nextPage: null,
        prevPage: 2,
      });
      const exactEnd = await get('?count=none&limit=25');
      expect(exactEnd.body.pagination.hasMore).toBe(false);
    });

    it('estimated: the planner estimate on PostgreSQL, exact elsewhere, and says which', async () => {
      const response = await get('?count=estimated&limit=5');
      expect(response.status).toBe(200);
      const { pagination } = response.body;
      if (testDialect() === 'postgres') {
        expect(pagination.totalEstimated).toBe(true);
        expect(Number.isInteger(pagination.total)).toBe(true);
      } else {
        expect(pagination).toMatchObject({ total: 25, totalEstimated: false, totalPages: 5 });
      }
      expect(pagination.hasMore).toBe(true);
      const exact = await get('?limit=5');
      expect(exact.body.pagination).not.toHaveProperty('totalEstimated');
    });

    it('refuses an unknown mode', async () => {
      const response = await get('?count=maybe');
      expect(response.status).toBe(400);
      expect(response.body.invalid_params[0].name).toBe('count');
    });
  });

  describe('cursors', () => {
    const walk = async (query: string) => {
      const seen: string[] = [];
      let response = await get(query);
      let pages = 1;
      for (;;) {
        expect(response.status).toBe(200);
        seen.push(...response.body.data.map((p: { id: string }) => p.id));
        const cursor = response.body.pagination.nextCursor;
        if (cursor === null) break;
        expect(response.body.pagination.page).toBe(pages);
        pages += 1;
        response = await get(`${query}&cursor=${encodeURIComponent(cursor)}`);
      }
      return seen;
    };

    it('walks the same rows as offset pages, with a multi-field sort with ties', async () => {
      const byOffset: string[] = [];
      for (let page = 1; page <= 4; page++)
        byOffset.push(
          ...(await get(`?sort=-title&limit=7&page=${page}`)).body.data.map((p: { id: string }) => p.id),
        );
      expect(byOffset).toHaveLength(25);
      expect(await walk('?sort=-title&limit=7')).toEqual(byOffset);
      expect(await walk('?sort=title,-id&limit=4&count=none&fields=title')).toHaveLength(25);
    });

    it('reads by keyset: no OFFSET in the statement of a cursor page', async () => {
      const first = await get('?limit=5&sort=title');
      t.queries.length = 0;
      const next = await get(
        `?limit=5&sort=title&cursor=${encodeURIComponent(first.body.pagination.nextCursor)}`,
      );
      expect(next.status).toBe(200);
      expect(next.body.pagination.page).toBe(2);
      const statement = postStatements().find((q) => /limit/i.test(q))!;
      expect(statement).not.toMatch(/offset/i);
    });

    it('refuses a cursor of another query, an altered one, and cursor with page', async () => {
      const first = await get('?limit=5&sort=title&search=title');
      const cursor: string = first.body.pagination.nextCursor;
      const ok = await get(`?limit=9&sort=title&search=title&cursor=${encodeURIComponent(cursor)}`);
      expect(ok.status).toBe(200);
      const refused = [
        `?limit=5&sort=-title&search=title&cursor=${encodeURIComponent(cursor)}`,
        `?limit=5&sort=title&search=other&cursor=${encodeURIComponent(cursor)}`,
        `?limit=5&sort=title&cursor=${encodeURIComponent(cursor)}`,
        `?limit=5&sort=title&search=title&status=published&cursor=${encodeURIComponent(cursor)}`,
        `?limit=5&sort=title&search=title&fields=title&cursor=${encodeURIComponent(cursor)}`,
        `?limit=5&sort=title&search=title&page=2&cursor=${encodeURIComponent(cursor)}`,
        `?limit=5&sort=title&search=title&cursor=${encodeURIComponent(cursor.slice(0, -1) + (cursor.endsWith('A') ? 'B' : 'A'))}`,
        `?limit=5&sort=title&search=title&cursor=${encodeURIComponent('A' + cursor.slice(1))}`,
        `?limit=5&sort=title&search=title&cursor=garbage`,
      ];
      for (const query of refused) {
        const response = await get(query);
        expect(response.status, query).toBe(400);
        expect(response.body.invalid_params[0].name, query).toBe('cursor');
      }
      // Another resource's list does not take it either.
      const comments = await t.client().get(`/api/v1/comments?cursor=${encodeURIComponent(cursor)}`);
      expect(comments.status).toBe(400);
    });
  });
});

/**
 * Property: walking a list by cursor yields exactly the rows of offset paging, for any sort over
 * columns of every type (with ties and nulls), any direction, any page size.
 */
describe(`cursor walks equal offset pages on ${testDialect()} (fast-check)`, () => {
  let t: ApiApp;
  let runs = 0;
  beforeAll(async () => {
    t = await startApiApp(specimenApi, specimenMigrations);
    const pick = <T>(values: T[], n: number) => values[n % values.length]!;
    const items = Array.from({ length: 40 }, (_, n) => ({
      i: pick([0, 1, -2], n),
      big: pick(['0', '-5', '9007199254740993', '9007199254740992'], n * 7),
      num: pick([0, 1.5, -2.25], n * 3),
      dec: pick(['1.5', '10', '-0.25', '2'], n * 5),
      flag: n % 2 === 0,
      str: pick(['a', 'B', 'é', 'É'], n * 11),
      txt: pick(['', 'x'], n * 13),
      day: pick(['2026-01-02', '1999-12-31'], n * 17),
      at: pick(['2026-01-02T03:04:05.000Z', '2026-01-02T03:04:05.001Z'], n * 19),
      doc: pick([1, 'x', { a: 1 }], n * 23),
      note: pick([null, 'x', 'y', null], n * 29),
    }));
    const created = await t.client().post('/api/v1/specimens', items);
    expect(created.status).toBe(201);
  });
  afterAll(async () => {
    console.log(`fast-check runs (cursor walk) on ${testDialect()}: ${runs}`);
    await t?.close();
  });

  it('yields the same rows', async () => {
    const columns = ['i', 'big', 'num', 'dec', 'flag', 'str', 'txt', 'day', 'at', 'note', 'id'];
    const client = t.client();
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.constantFrom(...columns), { minLength: 1, maxLength: 3 }),
        fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
        fc.integer({ min: 1, max: 15 }),
        fc.option(fc.constantFrom('filter[flag][eq]=true', 'filter[i][gte]=0', 'filter[note][null]=false'), {
          nil: undefined,
        }),
        async (sortColumns, descending, limit, filter) => {
          runs += 1;
          const sort = sortColumns.map((c, i) => (descending[i] ? `-${c}` : c)).join(',');
          const query = `?sort=${sort}&limit=${limit}${filter ? `&${filter}` : ''}`;
          const byOffset: unknown[] = [];
          for (let page = 1; ; page++) {
            const response = await client.get(`/api/v1/specimens${query}&page=${page}&count=none`);
            expect(response.status).toBe(200);
            byOffset.push(...response.body.data.map((r: { id: number }) => r.id));
            if (!response.body.pagination.hasMore) break;
          }
          const byCursor: unknown[] = [];
          let response = await client.get(`/api/v1/specimens${query}`);
          for (;;) {
            expect(response.status).toBe(200);
            byCursor.push(...response.body.data.map((r: { id: number }) => r.id));
            const cursor = response.body.pagination.nextCursor;
            if (!cursor) break;
            response = await client.get(`/api/v1/specimens${query}&cursor=${encodeURIComponent(cursor)}`);
          }
          expect(byCursor).toEqual(byOffset);
          expect(new Set(byCursor).size).toBe(byCursor.length);
        },
      ),
      { numRuns: 30 },
    );
  });
});
