/**
 * Issue 13, item 0: `derive` is bounded in depth (maxDeriveDepth, default 3) and in the related
 * rows one response embeds (10,000 in all), so a short anonymous GET cannot exhaust the heap.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertComments, insertPosts, startBlogApp, type BlogApp } from '../support/api-app.ts';
import { MAX_EMBEDDED_ROWS } from '../../src/api/request/derive-limits.ts';

describe('derive bounds', () => {
  let t: BlogApp;
  beforeAll(async () => {
    t = await startBlogApp();
    const author = await t.createUser();
    const [busy, quiet] = await insertPosts(t, author, [{ title: 'busy' }, { title: 'quiet' }]);
    await insertComments(t, busy!, 101);
    await insertComments(t, quiet!, 3);
  });
  afterAll(async () => t?.close());

  it('refuses a derive path deeper than 3 levels with 400 naming the limit, before any query', async () => {
    const deep = await t.client().get('/api/v1/posts?limit=1&derive=comments.post.comments.post');
    expect(deep.status).toBe(400);
    expect(deep.body.invalid_params[0].name).toBe('derive');
    expect(deep.body.detail).toMatch(/at most 3/);
    // The 26-step request of the finding: refused the same way, fast and small.
    const cycle = Array.from({ length: 26 }, (_, i) => (i % 2 === 0 ? 'comments' : 'post')).join('.');
    const attack = await t.client().get(`/api/v1/posts?limit=1&derive=${cycle}`);
    expect(attack.status).toBe(400);
    expect(attack.text.length).toBeLessThan(1000);
    // Single reads are bounded too.
    const item = await t.client().get(`/api/v1/comments?limit=1&derive=post.comments.post.comments`);
    expect(item.status).toBe(400);
  });

  it('three levels are still served', async () => {
    const ok = await t.client().get('/api/v1/posts?sort=title&derive=comments.post.author');
    expect(ok.status).toBe(200);
    const quiet = ok.body.data.find((p: { title: string }) => p.title === 'quiet');
    expect(quiet.comments).toHaveLength(3);
    expect(quiet.comments[0].post.title).toBe('quiet');
    expect(quiet.comments[0].post).not.toHaveProperty('comments');
  });

  it('refuses a response that would embed more than 10,000 related rows (a shared parent counts per place)', async () => {
    // One post with 101 comments, each embedding that post with its 101 comments:
    // 101 + 101 × (1 + 101) = 10,403 embedded rows, from only 203 fetched.
    const over = await t.client().get('/api/v1/posts?derive=comments.post.comments');
    expect(over.status).toBe(400);
    expect(over.body.detail).toContain(String(MAX_EMBEDDED_ROWS));
    expect(over.headers['content-type']).toMatch(/problem\+json/);
    // One level less embeds 101 + 101 = 202 rows: served.
    const under = await t.client().get('/api/v1/posts?derive=comments.post');
    expect(under.status).toBe(200);
    const busy = under.body.data.find((p: { title: string }) => p.title === 'busy');
    expect(busy.comments).toHaveLength(101);
    expect(busy.comments[0].post.title).toBe('busy');
  });

  it('the OpenAPI document states both limits', async () => {
    const docs = await t.client().get('/api/v1/docs');
    expect(docs.status).toBe(200);
    const list = (docs.body.paths['/posts'] ?? docs.body.paths['/api/v1/posts']).get;
    const derive = list.parameters.find((p: { name: string }) => p.name === 'derive');
    expect(derive.description).toMatch(/at most 3 levels/);
    expect(derive.description).toContain(String(MAX_EMBEDDED_ROWS));
    expect(derive['x-max-depth']).toBe(3);
    expect(derive['x-max-embedded-rows']).toBe(MAX_EMBEDDED_ROWS);
  });
});
