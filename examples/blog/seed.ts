import type { CitadelServices } from '../../src/plugin-api.ts';

const SAMPLE_POSTS = [
  [
    'Welcome to the Citadel blog',
    'This demo blog is served by the resource API. Try GET /api/v1/posts?derive=comments,author.',
  ],
  [
    'Searching posts',
    'Add search=... to a list read: the match is case-insensitive, and 100% or snake_case match literally.',
  ],
  [
    'Sorting and pages',
    'Use sort=-created_at,title and page/limit; ties are broken by the id, so pages never overlap.',
  ],
  [
    'Nested writes',
    'POST a post with a comments array: the post and its comments are created together or not at all.',
  ],
  [
    'Tokens and sessions',
    'Writes need a session or a bearer token with the posts:create, posts:update or posts:delete ability.',
  ],
] as const;

/**
 * Sample posts for a fresh database (SEED_DEMO=1, the default): only when the posts table is empty,
 * authored by a `demo` user who has no password (nobody can sign in as it).
 */
export async function seedBlog(services: CitadelServices): Promise<void> {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the blog's tables are not in the core schema
  const db = services.db as any;
  const existing = await db.selectFrom('posts').select('id').limit(1).executeTakeFirst();
  if (existing) return;
  const author =
    (await services.users.findByUsername('demo')) ??
    (await services.users.create({
      username: 'demo',
      email: 'demo@example.invalid',
      passwordHash: null,
      active: true,
    }));
  const start = services.clock.now().getTime() - SAMPLE_POSTS.length * 60_000;
  await db.transaction().execute(async (trx: typeof db) => {
    for (const [index, [title, body]] of SAMPLE_POSTS.entries()) {
      const at = new Date(start + index * 60_000).toISOString();
      await trx
        .insertInto('posts')
        .values({ title, body, status: 'published', author_id: author.id, created_at: at, updated_at: at })
        .execute();
    }
    const first = await trx.selectFrom('posts').select('id').orderBy('id').limit(1).executeTakeFirstOrThrow();
    const at = services.clock.now().toISOString();
    await trx
      .insertInto('comments')
      .values([
        {
          post_id: first.id,
          author_name: 'Ada',
          body: 'Nice to see an API that rolls back bulk writes.',
          created_at: at,
        },
        {
          post_id: first.id,
          author_name: 'Grace',
          body: 'derive=comments is one query per level. Good.',
          created_at: at,
        },
      ])
      .execute();
  });
}
