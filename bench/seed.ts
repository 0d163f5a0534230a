import { sql, type Kysely } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the demo tables, untyped here on purpose
export type AnyDb = Kysely<any>;

export interface SeedOptions {
  posts: number;
  commentsPerPost: number;
  authorId: number;
  /** Every n-th post is a draft (the anonymous list filters them out, as in the demo hook). */
  draftEvery: number;
}

const BODY =
  'Benchmark body text. It is long enough for an excerpt to be cut from it, and the same for every ' +
  'row so that row width does not vary between the engine and the hand-written route. '.repeat(2);

const iso = (n: number) => new Date(Date.UTC(2025, 0, 1) + n * 1000).toISOString();

/** Fill the demo tables directly (not through the API: seeding is not what is measured). */
export async function seed(db: AnyDb, options: SeedOptions, log: (line: string) => void): Promise<void> {
  const started = Date.now();
  const chunk = 500;
  await db.transaction().execute(async (trx) => {
    for (let first = 0; first < options.posts; first += chunk) {
      const rows = [];
      for (let i = first; i < Math.min(first + chunk, options.posts); i++) {
        rows.push({
          title: `Post number ${i}`,
          body: `${i} ${BODY}`,
          status: i % options.draftEvery === 0 ? 'draft' : 'published',
          author_id: options.authorId,
          created_at: iso(i),
          updated_at: iso(i),
        });
      }
      await trx.insertInto('posts').values(rows).execute();
    }
  });
  const ids = (await db.selectFrom('posts').select('id').orderBy('id').execute()).map((row) =>
    Number(row.id),
  );
  await db.transaction().execute(async (trx) => {
    for (let first = 0; first < ids.length; first += chunk) {
      const rows = [];
      for (const postId of ids.slice(first, first + chunk)) {
        for (let c = 0; c < options.commentsPerPost; c++) {
          rows.push({
            post_id: postId,
            author_name: `Reader ${c}`,
            body: `Comment ${c} on ${postId}`,
            created_at: iso(postId + c),
          });
        }
      }
      await trx.insertInto('comments').values(rows).execute();
    }
  });
  // Indexes for the measured queries, whatever the demo migration declares: both routes use them.
  await db.schema
    .createIndex('bench_posts_status_created')
    .ifNotExists()
    .on('posts')
    .columns(['status', 'created_at'])
    .execute();
  await db.schema.createIndex('bench_comments_post').ifNotExists().on('comments').column('post_id').execute();
  // Statistics (and on PostgreSQL the visibility map, so counts can be index-only scans), as a live
  // database's autovacuum would have them; a freshly bulk-loaded table has neither.
  const adapter = db.getExecutor().adapter.constructor.name;
  if (adapter.startsWith('Postgres')) await sql`VACUUM ANALYZE`.execute(db);
  // SQLite: the seeded tables only. Statistics of the bench's users and sessions (a row or two)
  // would make SQLite scan `users` in a session lookup instead of reading it by key, and take the
  // lookup off the point-read path; a live database's statistics describe its real tables.
  else if (adapter.startsWith('Sqlite')) {
    await sql`ANALYZE posts`.execute(db);
    await sql`ANALYZE comments`.execute(db);
  }
  log(
    `seeded ${options.posts} posts and ${ids.length * options.commentsPerPost} comments in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
}
