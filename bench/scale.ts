/**
 * `npm run bench:scale -- [--sizes 10000,100000,1000000] [--huge] [--dialects sqlite,postgres] [--explain]`
 *
 * The demo API on growing tables (issue 15): each request alone, median of three, through
 * Fastify's inject (no network), with the bare `SELECT count(*)` of the same rows as the yardstick
 * for `total`; `GET /me` p99 alone and while two clients read a deep page; the cold start on the
 * seeded database and the resident set size. `--huge` adds 10,000,000 posts; `--explain` logs
 * PostgreSQL's plan of the one-title search. Figures, not pass/fail: copy the table into
 * docs/scale.md with the load average.
 */
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { createServer } from '../src/server.ts';
import { createTestDatabase, type TestDialect } from '../test/helpers/databases.ts';
import { demoOptions } from './setup.ts';
import { seed, type AnyDb } from './seed.ts';

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '10000,100000,1000000' },
    huge: { type: 'boolean', default: false },
    dialects: { type: 'string', default: 'sqlite,postgres' },
    explain: { type: 'boolean', default: false },
  },
});
const sizes = values.sizes.split(',').map(Number);
if (values.huge) sizes.push(10_000_000);
const dialects = values.dialects.split(',') as TestDialect[];

const log = (line: string) => process.stderr.write(`${line}\n`);

async function median(run: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  await run(); // warm the statement caches
  for (let i = 0; i < 3; i++) {
    const started = performance.now();
    await run();
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b)[1]!;
}

/** p50 and p99 of `count` requests one after the other. */
async function latencies(run: () => Promise<unknown>, count: number): Promise<{ p50: number; p99: number }> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await run();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { p50: times[Math.floor(count / 2)]!, p99: times[Math.ceil(count * 0.99) - 1]! };
}

/**
 * `GET /me` alone, then while two clients read a deep page in a loop (issue 15, item 5: a slow
 * statement must not hold up unrelated requests).
 */
async function meBesideDeepPages(me: () => Promise<unknown>, deepPage: () => Promise<unknown>) {
  await me();
  const alone = await latencies(me, 100);
  let reading = true;
  const readers = [0, 1].map(async () => {
    while (reading) await deepPage();
  });
  await new Promise((resolve) => setTimeout(resolve, 50)); // both deep pages in flight
  const loaded = await latencies(me, 100);
  reading = false;
  await Promise.all(readers);
  return { alone, loaded };
}

async function benchOne(dialect: TestDialect, posts: number): Promise<Record<string, string>> {
  const database = await createTestDatabase(dialect);
  const options = await demoOptions();
  const base = {
    ...options,
    env: {},
    logger: false as const,
    seedDemo: false,
    databaseUrl: database.url,
    sessionSecret: 'bench-session-secret-that-is-long-enough-0123456789',
    appUrl: 'http://127.0.0.1',
    dataDir: '/tmp/citadel-bench-data',
  };
  let server = await createServer(base);
  try {
    const author = await server.services.users.create({
      username: 'bench author',
      email: 'bench@example.com',
      passwordHash: null,
      active: true,
    });
    const reader = await server.services.users.create({
      username: 'bench reader',
      email: 'reader@example.com',
      passwordHash: null,
      active: true,
    });
    await seed(
      server.services.db as unknown as AnyDb,
      { posts, commentsPerPost: 1, authorId: author.id, draftEvery: 10 },
      log,
    );
    await server.close();
    const coldStarted = performance.now();
    server = await createServer(base);
    await server.app.ready();
    const coldStart = performance.now() - coldStarted;
    const db = server.services.db as unknown as AnyDb;
    const { token } = await server.services.tokens.issue({
      userId: reader.id,
      name: 'bench',
      abilities: ['posts:read'],
      expiresAt: null,
    });
    const get =
      (url: string, signedIn = false) =>
      async () => {
        const response = await server.app.inject({
          url,
          headers: signedIn
            ? { authorization: `Bearer ${token}`, accept: 'application/json' }
            : { accept: 'application/json' },
        });
        if (response.statusCode !== 200) throw new Error(`${url}: ${response.statusCode} ${response.body}`);
      };
    const title = encodeURIComponent(`number ${Math.floor(posts / 2) + 7}`);
    const bareCount = await median(() =>
      sql`select count(*) as n from posts where status = 'published'`.execute(db),
    );
    const figures = {
      'list, anonymous': await median(get('/api/v1/posts?limit=20')),
      'list, signed in': await median(get('/api/v1/posts?limit=20', true)),
      'bare count(*)': bareCount,
      'search one title': await median(get(`/api/v1/posts?search=${title}`)),
      'sort=title': await median(get('/api/v1/posts?sort=title&limit=20')),
      'page of one': await median(get('/api/v1/posts?limit=1')),
    };
    if (values.explain && dialect === 'postgres') {
      // The count the engine runs for the one-title search (anonymous: published rows only).
      const pattern = `%number ${Math.floor(posts / 2) + 7}%`;
      const plan = await sql<{ 'QUERY PLAN': string }>`explain (analyze, buffers)
        select count(*) from posts where status = 'published'
        and (lower(title) like ${pattern} escape '!' or lower(body) like ${pattern} escape '!')`.execute(db);
      log(plan.rows.map((line) => line['QUERY PLAN']).join('\n'));
    }
    const deepPage = Math.max(1, Math.floor((posts * 0.8) / 20));
    const me = await meBesideDeepPages(get('/me', true), get(`/api/v1/posts?limit=20&page=${deepPage}`));
    const row: Record<string, string> = { dialect: dialect, posts: posts.toLocaleString('en') };
    for (const [name, ms] of Object.entries(figures)) row[name] = `${ms.toFixed(1)} ms`;
    row['signed/anon'] = (figures['list, signed in'] / figures['list, anonymous']).toFixed(2);
    row['list/count'] = (figures['list, anonymous'] / bareCount).toFixed(2);
    row['/me p99 alone'] = `${me.alone.p99.toFixed(1)} ms`;
    row['/me p99 beside 2 deep pages'] = `${me.loaded.p99.toFixed(1)} ms`;
    row['/me loaded/alone'] = (me.loaded.p99 / me.alone.p99).toFixed(2);
    row['cold start'] = `${coldStart.toFixed(0)} ms`;
    row.RSS = `${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB`;
    return row;
  } finally {
    await server.close();
    await database.drop();
  }
}

const rows: Record<string, string>[] = [];
for (const dialect of dialects) {
  for (const posts of sizes) {
    log(`${dialect}: ${posts} posts`);
    try {
      rows.push(await benchOne(dialect, posts));
    } catch (error) {
      log(`${dialect} ${posts}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
const columns = Object.keys(rows[0] ?? {});
console.log(`| ${columns.join(' | ')} |`);
console.log(`|${columns.map(() => '---').join('|')}|`);
for (const row of rows) console.log(`| ${columns.map((c) => row[c]).join(' | ')} |`);
console.log(
  `\nload average: ${loadavg()
    .map((n) => n.toFixed(2))
    .join(' ')}`,
);
