import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createApi } from '../../src/index.ts';
import { posts } from '../../examples/blog/resources/posts.ts';
import { comments } from '../../examples/blog/resources/comments.ts';
import { startBlogApp, insertPosts, type BlogApp } from '../support/api-app.ts';
import type { TestClient } from '../support/client.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { blogMigrations } from '../../examples/blog/migrations.ts';
import { blogPlugins } from '../../examples/blog/citadel.config.ts';

/**
 * A row rule planned as alternatives (issue 15, item 2) lists and counts exactly what the plain
 * rule does: the demo's posts (published | mine and not published, UNION ALL) against the same
 * resource with only its beforeQuery (published OR mine), on one database, for random pages,
 * sorts, filters and searches of a signed-in reader with drafts among other authors' drafts.
 */
const plainApi = createApi({
  apiName: 'plain rule',
  apiBaseUrl: '/api',
  resources: [{ ...posts, hooks: { ...posts.hooks, rowAlternatives: undefined } }, comments],
}).publish({ version: 'v1' });

describe('row rules as alternatives', () => {
  let planned: BlogApp;
  let plain: TestApp;
  let reader: TestClient;

  beforeAll(async () => {
    planned = await startBlogApp({ countQueries: true });
    plain = await startTestApp({
      api: plainApi,
      migrations: blogMigrations,
      // The same plugins as the blog app, whose migrations (organizations) the shared database ran.
      plugins: blogPlugins,
      sharedDatabase: planned.database,
      sharedMail: planned.mail,
    });
    const me = await planned.createUser();
    const other = await planned.createUser();
    const statuses = ['published', 'draft'];
    for (const [author, count] of [
      [me, 17],
      [other, 23],
    ] as const) {
      await insertPosts(
        planned,
        author,
        Array.from({ length: count }, (_, i) => ({
          title: `${i % 3 === 0 ? 'Alpha' : 'Beta'} ${author.username} ${i}`,
          status: statuses[(i * 7) % 3 === 0 ? 1 : 0],
        })),
      );
    }
    reader = await planned.signIn(me);
  });
  afterAll(async () => {
    await plain?.close();
    await planned?.close();
  });

  it('the signed-in list runs as UNION ALL of the alternatives', async () => {
    planned.queries.length = 0;
    const response = await reader.useApp(planned.app).get('/api/v1/posts');
    expect(response.status).toBe(200);
    expect(planned.queries.join('\n').toLowerCase()).toContain('union all');
  });

  it('the same page, order and total as the plain rule', async () => {
    const query = fc.record({
      page: fc.integer({ min: 1, max: 5 }),
      limit: fc.integer({ min: 1, max: 12 }),
      sort: fc.constantFrom('id', '-id', 'title', '-title,id', 'status,-created_at', '-updated_at'),
      status: fc.option(fc.constantFrom('draft', 'published'), { nil: undefined }),
      search: fc.option(fc.constantFrom('alpha', 'BETA', 'a', '1', 'zzz'), { nil: undefined }),
    });
    await fc.assert(
      fc.asyncProperty(query, async (q) => {
        const params = new URLSearchParams();
        for (const [key, value] of Object.entries(q)) if (value !== undefined) params.set(key, String(value));
        const url = `/api/v1/posts?${params}`;
        const a = await reader.useApp(planned.app).get(url);
        const b = await reader.useApp(plain.app).get(url);
        expect(a.status, a.text).toBe(200);
        // Cursors are sealed with a fresh nonce each time: compare where they lead instead.
        const withoutCursor = (body: { pagination: Record<string, unknown> }) => ({
          ...body,
          pagination: { ...body.pagination, nextCursor: body.pagination.nextCursor === null },
        });
        expect(withoutCursor(a.body)).toEqual(withoutCursor(b.body));
        const cursor = a.body.pagination.nextCursor as string | null;
        if (cursor === null) return;
        // The next page by cursor, through the alternatives, is the plain rule's next page.
        const next = new URLSearchParams(params);
        next.delete('page');
        next.set('cursor', cursor);
        const byCursor = await reader.useApp(planned.app).get(`/api/v1/posts?${next}`);
        expect(byCursor.status, byCursor.text).toBe(200);
        const following = new URLSearchParams(params);
        following.set('page', String(q.page + 1));
        const byPage = await reader.useApp(plain.app).get(`/api/v1/posts?${following}`);
        expect(byCursor.body.data).toEqual(byPage.body.data);
      }),
      { numRuns: 60, seed: 152 },
    );
  });
});
