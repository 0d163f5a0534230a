/**
 * The demo blog's pages (examples/blog/pages): the front page (published posts, search, older posts
 * by cursor), a post with its comments and the comment form, and "My posts" (write, edit, publish,
 * delete), all through the resource API as the visitor. Per database.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertComments, insertPosts, publicId, startBlogApp, type BlogApp } from '../support/api-app.ts';
import type { TestClient } from '../support/client.ts';

/** The post links of a page, in order. */
const postLinks = (page: string) => [...page.matchAll(/<h2><a href="\/posts\/([^"]+)">/g)].map((m) => m[1]!);
const olderLink = (page: string) => /<a href="([^"]+)" rel="next">/.exec(page)?.[1]?.replace(/&amp;/g, '&');

describe('demo blog pages', () => {
  let t: BlogApp;
  let author: Awaited<ReturnType<BlogApp['createUser']>>;
  let other: Awaited<ReturnType<BlogApp['createUser']>>;
  let published: number[];
  let draft: number;

  beforeAll(async () => {
    t = await startBlogApp();
    author = await t.createUser({ username: 'ada writes' });
    other = await t.createUser({ username: 'grace reads' });
    published = await insertPosts(
      t,
      author,
      Array.from({ length: 12 }, (_, i) => ({
        title: `Published ${i + 1}`,
        body: `Body about llamas ${i + 1}`,
      })),
    );
    [draft] = await insertPosts(t, author, [{ title: 'A secret draft', status: 'draft' }]);
    await insertComments(t, published[0]!, 2);
  });
  afterAll(async () => t?.close());

  it('the front page lists published posts newest first, ten a page, older ones by cursor', async () => {
    const anonymous = t.client();
    const first = await anonymous.get('/', 'form');
    expect(first.status).toBe(200);
    const ids = postLinks(first.text);
    expect(ids).toEqual(
      published
        .slice(2)
        .reverse()
        .map((id) => publicId(t, id)),
    );
    expect(first.text).not.toContain('A secret draft');
    const older = olderLink(first.text)!;
    expect(older).toMatch(/^\/\?cursor=/);
    const second = await anonymous.get(older, 'form');
    expect(postLinks(second.text)).toEqual([publicId(t, published[1]!), publicId(t, published[0]!)]);
    expect(olderLink(second.text)).toBeUndefined();
    expect(second.text).toContain('href="/">Newest posts</a>');
    // Signed in, the author still sees only published posts on the front page (drafts are in My posts).
    const session = await t.signIn(author);
    const signedIn = await session.get('/', 'form');
    expect(signedIn.text).not.toContain('A secret draft');
    expect(signedIn.text).toContain('href="/my/posts/new"');
  });

  it('search narrows the list and pages keep the search; a bad cursor is said, not a 500', async () => {
    const client = t.client();
    const found = await client.get(`/?search=${encodeURIComponent('Published 1')}`, 'form');
    // "Published 1", "Published 10", "Published 11", "Published 12".
    expect(postLinks(found.text)).toHaveLength(4);
    expect(found.text).toContain('Posts matching “Published 1”');
    const none = await client.get('/?search=nothing-like-this', 'form');
    expect(postLinks(none.text)).toEqual([]);
    expect(none.text).toContain('No published post matches this search.');
    const bad = await client.get('/?cursor=not-a-cursor', 'form');
    expect(bad.status).toBe(200);
    expect(bad.text).toMatch(/role="alert">[^<]*cursor/);
    // A search's cursor belongs to its query: the older-posts link carries both.
    const many = await client.get('/?search=llamas', 'form');
    expect(olderLink(many.text)).toMatch(/^\/\?search=llamas&cursor=/);
  });

  it('a post shows its comments; signed-in readers comment through the form, anonymous ones are sent to sign in', async () => {
    const id = publicId(t, published[0]!);
    const anonymous = t.client();
    const page = await anonymous.get(`/posts/${id}`, 'form');
    expect(page.status).toBe(200);
    expect(page.text).toContain('<h1>Published 1</h1>');
    expect(page.text).toContain('Comments (2)');
    expect(page.text).toContain('<a href="/login">Sign in</a> to comment.');
    expect(page.text).not.toContain(`action="/posts/${id}/comments"`);
    const refused = await anonymous.post(`/posts/${id}/comments`, { body: 'hello' }, 'form');
    expect([refused.status, refused.location]).toEqual([303, '/login']);
    expect((await anonymous.post(`/posts/${id}/comments`, { body: 'hello' })).status).toBe(401);

    const reader = await t.signIn(other);
    const withForm = await reader.get(`/posts/${id}`, 'form');
    expect(withForm.text).toContain(`action="/posts/${id}/comments"`);
    // No CSRF token: refused, nothing written.
    const forged = await reader.post(`/posts/${id}/comments`, { body: 'forged' }, 'form', { csrf: false });
    expect(forged.status).toBe(403);
    const empty = await reader.post(`/posts/${id}/comments`, { body: '' }, 'form');
    expect(empty.status).toBe(422);
    expect(empty.text).toContain('id="field-body-error"');
    expect(empty.text).toContain('<h1>Published 1</h1>');
    const added = await reader.post(`/posts/${id}/comments`, { body: 'Llamas <b>rule</b>' }, 'form');
    expect(added.status).toBe(303);
    expect(added.location).toBe(`/posts/${id}#comments`);
    const after = await reader.get(`/posts/${id}`, 'form');
    expect(after.text).toContain('Your comment was added.');
    expect(after.text).toContain('Comments (3)');
    expect(after.text).toContain('<strong>grace reads</strong>');
    expect(after.text).toContain('Llamas &lt;b&gt;rule&lt;/b&gt;');
    const stored = await t.db
      .selectFrom('comments')
      .selectAll()
      .where('body', '=', 'Llamas <b>rule</b>')
      .execute();
    expect(stored).toHaveLength(1);
    expect(stored[0]!.author_name).toBe('grace reads');
  });

  it("a draft is its author's only: others get a 404, the author sees it and may edit it", async () => {
    const id = publicId(t, draft);
    expect((await t.client().get(`/posts/${id}`, 'form')).status).toBe(404);
    const reader = await t.signIn(other);
    expect((await reader.get(`/posts/${id}`, 'form')).status).toBe(404);
    expect((await reader.get(`/my/posts/${id}/edit`, 'form')).status).toBe(404);
    const update = await reader.post(
      `/my/posts/${id}`,
      { title: 'Taken', body: 'x', status: 'published' },
      'form',
    );
    expect(update.status).toBe(404);
    expect((await reader.post(`/my/posts/${id}/delete`, {}, 'form')).status).toBe(404);
    const owner = await t.signIn(author);
    const page = await owner.get(`/posts/${id}`, 'form');
    expect(page.text).toContain('<span class="badge muted">Draft</span>');
    expect(page.text).toContain(`href="/my/posts/${id}/edit"`);
    const row = await t.db.selectFrom('posts').selectAll().where('id', '=', draft).executeTakeFirstOrThrow();
    expect(row.title).toBe('A secret draft');
  });

  it('My posts: write a draft, publish it, edit it, delete it; every step through the API', async () => {
    const writer = await t.signIn(other);
    expect((await t.client().get('/my/posts', 'form')).location).toBe('/login');
    expect((await t.client().get('/my/posts')).status).toBe(401);
    const start = await writer.get('/my/posts', 'form');
    expect(start.text).toContain('You have not written a post yet.');

    const invalid = await writer.post('/my/posts', { title: 'ab', body: 'text', status: 'draft' }, 'form');
    expect(invalid.status).toBe(422);
    expect(invalid.text).toContain('id="field-title-error"');
    expect(invalid.text).toContain('>\ntext</textarea'); // the text is kept

    const created = await writer.post(
      '/my/posts',
      { title: 'Grace on llamas', body: 'First paragraph.\n\nSecond.', status: 'draft' },
      'form',
    );
    expect(created.status).toBe(303);
    expect(created.location).toBe('/my/posts');
    const row = await t.db
      .selectFrom('posts')
      .selectAll()
      .where('title', '=', 'Grace on llamas')
      .executeTakeFirstOrThrow();
    expect(row.author_id).toBe(other.id);
    expect(row.status).toBe('draft');
    const id = publicId(t, Number(row.id));
    const mine = await writer.get('/my/posts', 'form');
    expect(mine.text).toContain('Your draft is saved.');
    expect(postLinks(mine.text)).toEqual([id]);
    expect(mine.text).not.toContain('Published 1<'); // only the caller's posts
    expect(postLinks((await t.client().get('/', 'form')).text)).not.toContain(id);

    const publish = await writer.post(`/my/posts/${id}/publish`, {}, 'form');
    expect(publish.location).toBe(`/posts/${id}`);
    expect(postLinks((await t.client().get('/', 'form')).text)[0]).toBe(id);

    const form = await writer.get(`/my/posts/${id}/edit`, 'form');
    expect(form.text).toContain('value="Grace on llamas"');
    expect(form.text).toContain('<option value="published" selected>');
    const edited = await writer.post(
      `/my/posts/${id}`,
      { title: 'Grace on alpacas', body: 'Changed.', status: 'published' },
      'form',
    );
    expect(edited.location).toBe(`/posts/${id}`);
    expect((await writer.get(`/posts/${id}`, 'form')).text).toContain('<h1>Grace on alpacas</h1>');

    const removed = await writer.post(`/my/posts/${id}/delete`, {}, 'form');
    expect(removed.location).toBe('/my/posts');
    expect(
      await t.db.selectFrom('posts').select('id').where('id', '=', row.id).executeTakeFirst(),
    ).toBeUndefined();
    expect((await writer.get(`/posts/${id}`, 'form')).status).toBe(404);
  });

  it('writes from the pages are rate limited per user', async () => {
    const writer: TestClient = await t.signIn(await t.createUser());
    const id = publicId(t, published[5]!);
    const _csrf = await writer.csrfToken();
    const answers = await Promise.all(
      Array.from({ length: 65 }, (_, i) =>
        writer.post(`/posts/${id}/comments`, { body: `c${i}`, _csrf }, 'form', { csrf: false }),
      ),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 303)).toHaveLength(60);
    expect(statuses.filter((s) => s === 429)).toHaveLength(5);
  });
});
