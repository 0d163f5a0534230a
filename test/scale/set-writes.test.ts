import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBlogApp, type BlogApp } from '../support/api-app.ts';
import { blogApi } from '../../examples/blog/api.ts';
import { compileApi } from '../../src/api/resource/compile.ts';
import { insertRows } from '../../src/api/write/write-set.ts';
import { testDialect } from '../support/databases.ts';

/**
 * Set-based writes (issue 15, item 4): each level is one multi-row INSERT … RETURNING, split only
 * where the driver's parameter limit says so, and the stored rows come back in the order given.
 */
const dialect = testDialect();
const LIMIT = dialect === 'sqlite' ? 32_766 : 65_535;

describe('set-based inserts', () => {
  let t: BlogApp;
  beforeAll(async () => {
    t = await startBlogApp({ countQueries: true });
  });
  afterAll(async () => t?.close());

  it('splits a level at the parameter limit and returns every row in the order given', async () => {
    const author = await t.createUser();
    const posts = compileApi(blogApi, dialect).get('posts')!;
    const at = '2026-03-01T00:00:00.000Z';
    const perStatement = Math.floor(LIMIT / 6); // six columns a row
    const rows = Array.from({ length: perStatement + 3 }, (_, i) => ({
      title: `Row ${i}`,
      body: 'b',
      status: 'draft',
      author_id: author.id,
      created_at: at,
      updated_at: at,
    }));
    t.queries.length = 0;
    const stored = await t.db.transaction().execute((trx) => insertRows(trx, posts, dialect, rows));
    expect(t.queries.filter((q) => /^insert into/i.test(q))).toHaveLength(2);
    expect(stored.map((row) => row.title)).toEqual(rows.map((row) => row.title));
    const ids = stored.map((row) => Number(row.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
  });

  it('rows of different shapes go in consecutive runs, defaults filled, order kept', async () => {
    const author = await t.createUser();
    const posts = compileApi(blogApi, dialect).get('posts')!;
    const at = '2026-03-02T00:00:00.000Z';
    const base = { body: 'b', author_id: author.id, created_at: at, updated_at: at };
    const rows = [
      { ...base, title: 'first' },
      { ...base, title: 'second', status: 'published' },
      { ...base, title: 'third', status: 'published' },
      { ...base, title: 'fourth' },
    ];
    t.queries.length = 0;
    const stored = await t.db.transaction().execute((trx) => insertRows(trx, posts, dialect, rows));
    expect(t.queries.filter((q) => /^insert into/i.test(q))).toHaveLength(3);
    expect(stored.map((row) => [row.title, row.status])).toEqual([
      ['first', 'draft'],
      ['second', 'published'],
      ['third', 'published'],
      ['fourth', 'draft'],
    ]);
  });

  it('a nested create of 1,000 comments under 1 post is two INSERT statements', async () => {
    const user = await t.createUser();
    const client = await t.signIn(user);
    t.queries.length = 0;
    const response = await client.post('/api/v1/posts', {
      title: 'Many comments',
      body: 'b',
      comments: Array.from({ length: 999 }, (_, i) => ({ author_name: `r${i}`, body: `c${i}` })),
    });
    expect(response.status, response.text).toBe(201);
    expect(response.body.data.comments.map((c: { body: string }) => c.body)).toEqual(
      Array.from({ length: 999 }, (_, i) => `c${i}`),
    );
    // The rows themselves: the live outbox (posts are live in the demo) records the change in the
    // same transaction, in statements of its own.
    const rowInserts = t.queries.filter(
      (q) => /^insert into/i.test(q) && !/live_(changes|sequences)/.test(q),
    );
    expect(rowInserts).toHaveLength(2);
  });
});
