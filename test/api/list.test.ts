import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserRecord } from '../../src/auth/core/users.ts';
import { insertComments, insertPosts, startBlogApp, type BlogApp } from '../support/api-app.ts';

/** List reads: pagination, limits, sort, search and derive (contract section 5). */
describe('resource API list reads', () => {
  let t: BlogApp;
  let author: UserRecord;
  beforeAll(async () => {
    t = await startBlogApp({ countQueries: true });
    author = await t.createUser();
  });
  afterAll(async () => t?.close());

  const list = async (query: string) => {
    const response = await t.client().get(`/api/v1/posts${query}`);
    return response;
  };

  it('gives an empty page and zero totals for an empty table', async () => {
    const response = await list('');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      status: 'success',
      data: [],
      pagination: {
        page: 1,
        limit: 20,
        total: 0,
        totalPages: 0,
        hasMore: false,
        nextPage: null,
        prevPage: null,
        nextCursor: null,
      },
    });
  });

  describe('with 45 published posts and a draft', () => {
    let ids: number[];
    beforeAll(async () => {
      ids = await insertPosts(
        t,
        author,
        Array.from({ length: 45 }, () => ({})),
      );
      await insertPosts(t, author, [{ status: 'draft' }]);
    });

    it('paginates: first, middle and last page', async () => {
      const first = await list('?limit=20&page=1');
      expect(first.status).toBe(200);
      expect(first.body.pagination).toEqual({
        page: 1,
        limit: 20,
        total: 45,
        totalPages: 3,
        hasMore: true,
        nextPage: 2,
        prevPage: null,
        nextCursor: expect.any(String),
      });
      const middle = await list('?limit=20&page=2');
      expect(middle.body.pagination).toEqual({
        page: 2,
        limit: 20,
        total: 45,
        totalPages: 3,
        hasMore: true,
        nextPage: 3,
        prevPage: 1,
        nextCursor: expect.any(String),
      });
      const last = await list('?limit=20&page=3');
      expect(last.body.pagination).toEqual({
        page: 3,
        limit: 20,
        total: 45,
        totalPages: 3,
        hasMore: false,
        nextPage: null,
        prevPage: 2,
        nextCursor: null,
      });
      expect([first, middle, last].map((r) => r.body.data.length)).toEqual([20, 20, 5]);
      // Default order is by primary key: the pages together are every post exactly once, in order.
      const titles = [first, middle, last].flatMap((r) => r.body.data.map((p: { title: string }) => p.title));
      const expected = await t.db
        .selectFrom('posts')
        .select('title')
        .where('id', 'in', ids)
        .orderBy('id')
        .execute();
      expect(titles).toEqual(expected.map((row) => row.title));
    });

    it('gives an empty page past the end', async () => {
      const response = await list('?limit=20&page=9');
      expect(response.status).toBe(200);
      expect(response.body.data).toEqual([]);
      expect(response.body.pagination).toMatchObject({
        page: 9,
        total: 45,
        hasMore: false,
        nextPage: null,
        prevPage: 3,
      });
    });

    it('lowers a limit above maxLimit (50 for posts) and reports it', async () => {
      const response = await list('?limit=80');
      expect(response.status).toBe(200);
      expect(response.body.pagination).toMatchObject({ limit: 50, total: 45, totalPages: 1, hasMore: false });
      expect(response.body.data).toHaveLength(45);
      const huge = await list('?limit=99999999999999999999999');
      expect(huge.status).toBe(200);
      expect(huge.body.pagination.limit).toBe(50);
      const far = await list('?page=123456789012');
      expect(far.status).toBe(200);
      expect(far.body.data).toEqual([]);
      expect((await list('?page=99999999999999999999999')).status).toBe(400);
      const exact = await list('?limit=7&page=2');
      expect(exact.body.pagination).toMatchObject({
        limit: 7,
        page: 2,
        totalPages: 7,
        nextPage: 3,
        prevPage: 1,
        nextCursor: expect.any(String),
      });
      expect(exact.body.data).toHaveLength(7);
    });

    it('filters by equality on filterable columns only', async () => {
      const session = await t.signIn(author);
      const drafts = await session.get('/api/v1/posts?status=draft');
      expect(drafts.body.pagination.total).toBe(1);
      expect(drafts.body.data[0].status).toBe('draft');
      const published = await session.get('/api/v1/posts?status=published&limit=1');
      expect(published.body.pagination.total).toBe(45);
      // The scope still applies: anonymous callers filtering on drafts find none.
      expect((await list('?status=draft')).body.pagination.total).toBe(0);
      const notFilterable = await list('?title=Post%20number%201');
      expect(notFilterable.status).toBe(400);
      expect(notFilterable.body.invalid_params[0].name).toBe('title');
    });

    it.each([
      ['page=0', 'page'],
      ['page=-1', 'page'],
      ['page=abc', 'page'],
      ['page=1.5', 'page'],
      ['page=', 'page'],
      ['limit=0', 'limit'],
      ['limit=-5', 'limit'],
      ['limit=ten', 'limit'],
      ['limit=2e1', 'limit'],
      ['page=1&page=2', 'page'],
      ['unknown=1', 'unknown'],
    ])('refuses %s with 400 problem details', async (query, name) => {
      const response = await list(`?${query}`);
      expect(response.status).toBe(400);
      expect(response.headers['content-type']).toContain('application/problem+json');
      expect(response.body).toMatchObject({
        type: 'about:blank',
        title: 'Bad Request',
        status: 400,
        instance: '/api/v1/posts',
      });
      expect(response.body.invalid_params).toEqual([{ name, reason: expect.any(String) }]);
    });
  });

  describe('sort', () => {
    let app: BlogApp;
    beforeAll(async () => {
      app = await startBlogApp();
      const user = await app.createUser();
      // Titles repeat and timestamps repeat, so only the full sort (and the id tie-break) orders them.
      await insertPosts(app, user, [
        { title: 'bravo', created_at: '2026-01-01T00:00:02.000Z' },
        { title: 'alpha', created_at: '2026-01-01T00:00:01.000Z' },
        { title: 'bravo', created_at: '2026-01-01T00:00:03.000Z' },
        { title: 'alpha', created_at: '2026-01-01T00:00:03.000Z' },
        { title: 'charlie', created_at: '2026-01-01T00:00:01.000Z' },
        { title: 'alpha', created_at: '2026-01-01T00:00:03.000Z' },
        { title: 'bravo', created_at: '2026-01-01T00:00:02.000Z' },
      ]);
    });
    afterAll(async () => app?.close());

    async function rows(query: string) {
      const response = await app.client().get(`/api/v1/posts${query}`);
      expect(response.status).toBe(200);
      return response.body.data as { id: string; title: string; created_at: string }[];
    }

    it('sorts by several fields, descending with -, ties broken by the primary key', async () => {
      const byId = await rows('?sort=id');
      const position = new Map(byId.map((row, index) => [row.id, index]));
      const sorted = await rows('?sort=title,-created_at');
      // The key breaks the remaining ties in the last term's direction (descending here).
      const expected = [...byId].sort(
        (a, b) =>
          a.title.localeCompare(b.title) ||
          b.created_at.localeCompare(a.created_at) ||
          position.get(b.id)! - position.get(a.id)!,
      );
      expect(sorted.map((row) => row.id)).toEqual(expected.map((row) => row.id));
      expect(sorted.map((row) => `${row.title}@${row.created_at.slice(18, 19)}`)).toEqual([
        'alpha@3',
        'alpha@3',
        'alpha@1',
        'bravo@3',
        'bravo@2',
        'bravo@2',
        'charlie@1',
      ]);
      const reversed = await rows('?sort=-title,created_at');
      expect(reversed.map((row) => row.title)).toEqual([
        'charlie',
        'bravo',
        'bravo',
        'bravo',
        'alpha',
        'alpha',
        'alpha',
      ]);
    });

    it('breaks ties by the primary key in the direction of the last sort term', async () => {
      // `-created_at` ends in a descending term: its ties go by descending key, so one index on
      // (created_at, id) read backwards serves it (MariaDB sorts every row for a mixed order).
      const byId = (await rows('?sort=id')).map((row) => row.id);
      const position = (id: string) => byId.indexOf(id);
      let ties = 0;
      for (const [sort, descending] of [
        ['-created_at', true],
        ['created_at', false],
      ] as const) {
        const sorted = await rows(`?sort=${sort}`);
        for (let i = 1; i < sorted.length; i++) {
          const [a, b] = [sorted[i - 1]!, sorted[i]!];
          expect(descending ? a.created_at >= b.created_at : a.created_at <= b.created_at).toBe(true);
          if (a.created_at !== b.created_at) continue;
          ties++;
          if (descending) expect(position(a.id)).toBeGreaterThan(position(b.id));
          else expect(position(a.id)).toBeLessThan(position(b.id));
        }
      }
      expect(ties).toBeGreaterThan(0);
    });

    it('keeps pages stable over ties: every row once, whatever the page size', async () => {
      const all = (await rows('?sort=status&limit=50')).map((row) => row.id);
      const byId = (await rows('?sort=id')).map((row) => row.id);
      expect(all).toEqual(byId);
      for (const size of [2, 3]) {
        const seen: string[] = [];
        for (let page = 1; page <= Math.ceil(7 / size); page++) {
          seen.push(...(await rows(`?sort=status&limit=${size}&page=${page}`)).map((row) => row.id));
        }
        expect(seen).toEqual(byId);
      }
    });

    it.each(['nope', 'author_id', 'title,-password', '-', 'title,,id'])(
      'refuses sort=%s with 400',
      async (sort) => {
        const response = await app.client().get(`/api/v1/posts?sort=${encodeURIComponent(sort)}`);
        expect(response.status).toBe(400);
        expect(response.body.invalid_params[0].name).toBe('sort');
      },
    );

    it('names the sortable fields when refusing', async () => {
      const response = await app.client().get('/api/v1/posts?sort=nope');
      expect(response.body.detail).toContain('"nope"');
      expect(response.body.detail).toContain('title');
    });
  });

  describe('search', () => {
    let app: BlogApp;
    beforeAll(async () => {
      app = await startBlogApp({ countQueries: true });
      const user = await app.createUser();
      await insertPosts(app, user, [
        { title: 'Discount 100% off', body: 'plain' },
        { title: 'Discount 1000 off', body: 'plain' },
        { title: 'snake_case names', body: 'plain' },
        { title: 'snakeXcase names', body: 'plain' },
        { title: 'MiXeD CaSe Title', body: 'plain' },
        { title: 'Only in the body', body: 'the Needle is here' },
        { title: 'Bang! here', body: 'plain' },
        { title: 'Bang here', body: 'plain' },
        { title: 'Élan vital', body: 'plain' },
        { title: 'ÇA ÉTÉ ΣΟΦΊΑ', body: 'plain' },
      ]);
    });
    afterAll(async () => app?.close());

    async function titles(search: string) {
      const response = await app.client().get(`/api/v1/posts?search=${encodeURIComponent(search)}`);
      expect(response.status).toBe(200);
      return (response.body.data as { title: string }[]).map((row) => row.title).sort();
    }

    it('matches case-insensitively over title and body', async () => {
      expect(await titles('mixed case')).toEqual(['MiXeD CaSe Title']);
      expect(await titles('MIXED')).toEqual(['MiXeD CaSe Title']);
      expect(await titles('needle')).toEqual(['Only in the body']);
      expect(await titles('discount')).toEqual(['Discount 100% off', 'Discount 1000 off']);
    });

    it('folds the case of Unicode letters on every dialect', async () => {
      expect(await titles('élan')).toEqual(['Élan vital']);
      expect(await titles('ÉLAN')).toEqual(['Élan vital']);
      expect(await titles('ça été σοφία')).toEqual(['ÇA ÉTÉ ΣΟΦΊΑ']);
    });

    it('treats % and _ literally (and the escape character too)', async () => {
      expect(await titles('100%')).toEqual(['Discount 100% off']);
      expect(await titles('%')).toEqual(['Discount 100% off']);
      expect(await titles('snake_case')).toEqual(['snake_case names']);
      expect(await titles('_')).toEqual(['snake_case names']);
      expect(await titles('g!')).toEqual(['Bang! here']);
      expect(await titles("o'ne")).toEqual([]);
    });

    it('counts only the matches', async () => {
      const response = await app.client().get('/api/v1/posts?search=names&limit=1');
      expect(response.body.pagination).toMatchObject({ total: 2, totalPages: 2, hasMore: true });
    });

    it('gives the exact total on every page, counting only when the page is full', async () => {
      const read = async (query: string) => {
        app.queries.length = 0;
        const response = await app.client().get(`/api/v1/posts?search=discount${query}`);
        expect(response.status).toBe(200);
        const counted = app.queries.some((statement) => /count\(/i.test(statement));
        return { total: response.body.pagination.total as number, rows: response.body.data.length, counted };
      };
      // A full page cannot tell whether more rows follow: counted.
      expect(await read('&limit=1&page=1')).toEqual({ total: 2, rows: 1, counted: true });
      // A page with no row past it ends the matches: the total is the rows before it plus its own.
      expect(await read('&limit=1&page=2')).toEqual({ total: 2, rows: 1, counted: false });
      expect(await read('&limit=5')).toEqual({ total: 2, rows: 2, counted: false });
      // An empty page past the end says nothing about the rows before it: counted.
      expect(await read('&limit=1&page=3')).toEqual({ total: 2, rows: 0, counted: true });
      // Counted exactly only: with count=none nothing is counted either way.
      expect(await read('&limit=1&count=none')).toEqual({ total: null, rows: 1, counted: false });
      app.queries.length = 0;
      const none = await app.client().get('/api/v1/posts?search=no-such-text');
      expect(none.body.pagination).toMatchObject({ total: 0, totalPages: 0, hasMore: false });
      expect(app.queries.some((statement) => /count\(/i.test(statement))).toBe(false);
    });
  });

  describe('derive', () => {
    let app: BlogApp;
    let postIds: number[];
    beforeAll(async () => {
      app = await startBlogApp({ countQueries: true });
      const user = await app.createUser({ username: 'derive author' });
      postIds = await insertPosts(
        app,
        user,
        Array.from({ length: 60 }, () => ({})),
      );
      for (const id of postIds) await insertComments(app, id, 2);
    });
    afterAll(async () => app?.close());

    it('embeds allowed relations: hasMany comments and the author as {id, username} only', async () => {
      const response = await app.client().get('/api/v1/posts?derive=comments,author&limit=3');
      expect(response.status).toBe(200);
      for (const post of response.body.data) {
        expect(post.comments).toHaveLength(2);
        for (const comment of post.comments) {
          expect(comment.post_id).toBe(post.id);
          expect(Object.keys(comment).sort()).toEqual(['author_name', 'body', 'created_at', 'id', 'post_id']);
        }
        expect(post.author).toEqual({ id: expect.any(String), username: 'derive author' });
        expect(post).not.toHaveProperty('author_id');
      }
      const plain = await app.client().get('/api/v1/posts?limit=1');
      expect(plain.body.data[0]).not.toHaveProperty('comments');
      expect(plain.body.data[0]).not.toHaveProperty('author');
    });

    it('embeds nested relations with dotted paths', async () => {
      const response = await app.client().get('/api/v1/posts?derive=comments.post&limit=2');
      expect(response.status).toBe(200);
      for (const post of response.body.data) {
        for (const comment of post.comments) {
          expect(comment.post).toMatchObject({ id: post.id, title: post.title });
          expect(comment.post).not.toHaveProperty('comments');
        }
      }
      const item = await app.client().get(`/api/v1/comments?derive=post.author&limit=1`);
      expect(item.status).toBe(200);
      expect(item.body.data[0].post.author).toEqual({ id: expect.any(String), username: 'derive author' });
    });

    it.each([
      ['nope', 'comments, author'],
      ['comments.nope', 'post'],
      ['comments,bogus', 'comments, author'],
      ['author.posts', 'author'],
      ['comments..post', 'allowed: post'],
    ])('refuses derive=%s with 400 naming what is allowed', async (derive, allowed) => {
      const response = await app.client().get(`/api/v1/posts?derive=${derive}`);
      expect(response.status).toBe(400);
      expect(response.body.invalid_params[0].name).toBe('derive');
      expect(response.body.detail).toContain(allowed);
    });

    it('runs one statement per relation level, whatever the number of rows', async () => {
      const derive = 'comments.post.author,author';
      const statements = async (limit: number) => {
        app.queries.length = 0;
        const response = await app.client().get(`/api/v1/posts?derive=${derive}&limit=${limit}`);
        expect(response.status).toBe(200);
        expect(response.body.data).toHaveLength(limit);
        expect(response.body.data.every((p: { comments: unknown[] }) => p.comments.length === 2)).toBe(true);
        return [...app.queries];
      };
      const five = await statements(5);
      const fifty = await statements(50);
      // count + page, then comments, their posts, those posts' authors, and the page's authors.
      expect(five).toHaveLength(6);
      expect(fifty).toHaveLength(five.length);
      expect(fifty.filter((sql) => /comments/.test(sql) && !/count/i.test(sql))).toHaveLength(1);
    });
  });
});
