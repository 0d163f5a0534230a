/**
 * `npm run bench:scale -- [--sizes 10000,100000,1000000] [--huge] [--dialects sqlite,postgres[,mysql]]
 *  [--explain] [--seconds 3] [--readers N]`
 *
 * The demo API on growing tables (issue 15). Each case alone: median of three through Fastify's
 * inject (no network), with the bare `SELECT count(*)` of the same rows as the yardstick for
 * `total`. Each case under 10 connections: autocannon for `--seconds` against `citadel serve` (one
 * process) on the seeded database: requests a second and p99. `count=none` and keyset-cursor cases
 * (a page at 80 % of the table, its cursor obtained from the API) give the ratio of the largest
 * size to the smallest. `GET /me` p99 alone and while two clients read a deep page; the cold start
 * on the seeded database; the resident set size of the serve process after it served every case.
 * `--huge` adds 10,000,000 posts; `--explain` logs PostgreSQL's plans of the one-title search;
 * `--readers N` sets the in-process server's pool (SQLite reader threads; the serve process keeps
 * its default).
 * Figures, not pass/fail: copy the tables into docs/scale.md with the load average.
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { createServer } from '../src/app/server.ts';
import { createTestDatabase, type TestDialect } from '../test/support/databases.ts';
import { BENCH_SECRET, demoOptions } from './setup.ts';
import { seed, type AnyDb } from './seed.ts';
import { load } from './load.ts';
import { buildUnlessCurrent, startServeProcess } from './serve-process.ts';

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '10000,100000,1000000' },
    huge: { type: 'boolean', default: false },
    dialects: { type: 'string', default: 'sqlite,postgres' },
    explain: { type: 'boolean', default: false },
    seconds: { type: 'string', default: '3' },
    // The in-process server's pool: SQLite reader threads, PostgreSQL/MariaDB connections.
    readers: { type: 'string' },
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

/** One request of the benchmark: its path, and whether it is sent signed in. */
interface Case {
  name: string;
  path: string;
  signedIn: boolean;
}

/** Resident and peak resident set size of a process, from /proc (Linux), in MiB. */
function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rss: kib('VmRSS') / 1024, peak: kib('VmHWM') / 1024 };
}

/** The PostgreSQL plans of the one-title search's page and count, as the anonymous list runs them. */
async function explainSearch(db: AnyDb, term: string): Promise<void> {
  const pattern = `%${term}%`;
  const where = sql`status = 'published'
    and (lower(title) like ${pattern} escape '!' or lower(body) like ${pattern} escape '!')`;
  for (const statement of [
    sql`explain (analyze, buffers) select id, title from posts where ${where} order by id limit 21`,
    sql`explain (analyze, buffers) select count(*) from posts where ${where}`,
  ]) {
    const plan = await statement.execute(db);
    log((plan.rows as Record<string, string>[]).map((line) => line['QUERY PLAN']).join('\n'));
  }
}

const ms = (value: number) => `${value.toFixed(1)} ms`;

/**
 * Waits until the server has finished the requests autocannon left in flight when its time was up:
 * at 10M posts a `count=exact` list takes a reader hundreds of milliseconds, and ten abandoned ones
 * would otherwise be served during (and counted against) the next case. Idle is two cheap pages at
 * once (one per reader thread) both answering within 50 ms, twice in a row; at most a minute.
 */
async function settle(origin: string): Promise<void> {
  const cheap = async () => {
    const started = performance.now();
    await (
      await fetch(`${origin}/api/v1/posts?limit=1&count=none`, { headers: { accept: 'application/json' } })
    ).arrayBuffer();
    return performance.now() - started;
  };
  const deadline = Date.now() + 60_000;
  for (let quiet = 0; quiet < 2 && Date.now() < deadline;) {
    const times = await Promise.all([cheap(), cheap()]);
    quiet = Math.max(...times) < 50 ? quiet + 1 : 0;
  }
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
    sessionSecret: BENCH_SECRET,
    appUrl: 'http://127.0.0.1',
    dataDir: '/tmp/citadel-bench-data',
    ...(values.readers ? { database: { poolSize: Number(values.readers) } } : {}),
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
    const seedStarted = performance.now();
    await seed(
      server.services.db as unknown as AnyDb,
      { posts, commentsPerPost: 1, authorId: author.id, draftEvery: 10 },
      log,
    );
    const seedSeconds = (performance.now() - seedStarted) / 1000;
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
    const headers = (signedIn: boolean): Record<string, string> =>
      signedIn
        ? { authorization: `Bearer ${token}`, accept: 'application/json' }
        : { accept: 'application/json' };
    const inject = async (path: string, signedIn: boolean) => {
      const response = await server.app.inject({ url: path, headers: headers(signedIn) });
      if (response.statusCode !== 200) throw new Error(`${path}: ${response.statusCode} ${response.body}`);
      return response.json() as { pagination: { nextCursor: string | null } };
    };
    const get =
      (path: string, signedIn = false) =>
      () =>
        inject(path, signedIn);
    const term = `number ${Math.floor(posts / 2) + 7}`;
    const deepPage = Math.max(1, Math.floor((posts * 0.8) / 20));
    // The cursor of the page after a deep one, as a client paging by cursor would hold it; the
    // API makes (and signs) it, for the anonymous and the signed-in reader alike.
    const cursorAt = async (signedIn: boolean) => {
      const { pagination } = await inject(`/api/v1/posts?limit=20&count=none&page=${deepPage - 1}`, signedIn);
      if (!pagination.nextCursor) throw new Error(`no cursor after page ${deepPage - 1}`);
      return encodeURIComponent(pagination.nextCursor);
    };
    const cases: Case[] = [
      { name: 'list, anonymous', path: '/api/v1/posts?limit=20', signedIn: false },
      { name: 'list, signed in', path: '/api/v1/posts?limit=20', signedIn: true },
      { name: 'search one title', path: `/api/v1/posts?search=${encodeURIComponent(term)}`, signedIn: false },
      { name: 'sort=title', path: '/api/v1/posts?sort=title&limit=20', signedIn: false },
      { name: 'page of one', path: '/api/v1/posts?limit=1', signedIn: false },
      { name: 'count=none, anonymous', path: '/api/v1/posts?limit=20&count=none', signedIn: false },
      { name: 'count=none, signed in', path: '/api/v1/posts?limit=20&count=none', signedIn: true },
      {
        name: 'count=none, sort=title',
        path: '/api/v1/posts?sort=title&limit=20&count=none',
        signedIn: false,
      },
      {
        name: 'cursor at 80 %, anonymous',
        path: `/api/v1/posts?limit=20&count=none&cursor=${await cursorAt(false)}`,
        signedIn: false,
      },
      {
        name: 'cursor at 80 %, signed in',
        path: `/api/v1/posts?limit=20&count=none&cursor=${await cursorAt(true)}`,
        signedIn: true,
      },
    ];
    const bareCount = await median(() =>
      sql`select count(*) as n from posts where status = 'published'`.execute(db),
    );
    const row: Record<string, string> = { dialect, posts: posts.toLocaleString('en') };
    row.seeding = `${seedSeconds.toFixed(0)} s`;
    row['bare count(*)'] = ms(bareCount);
    const alone: Record<string, number> = {};
    for (const one of cases) {
      alone[one.name] = await median(get(one.path, one.signedIn));
      row[`alone: ${one.name}`] = ms(alone[one.name]!);
    }
    row['signed/anon'] = (alone['list, signed in']! / alone['list, anonymous']!).toFixed(2);
    row['list/count'] = (alone['list, anonymous']! / bareCount).toFixed(2);
    row['signed list/count'] = (alone['list, signed in']! / bareCount).toFixed(2);
    row['sort=title/count'] = (alone['sort=title']! / bareCount).toFixed(2);
    if (values.explain && dialect === 'postgres') await explainSearch(db, term);
    const me = await meBesideDeepPages(get('/me', true), get(`/api/v1/posts?limit=20&page=${deepPage}`));
    row['/me p99 alone'] = ms(me.alone.p99);
    row['/me p99 beside 2 deep pages'] = ms(me.loaded.p99);
    row['/me loaded/alone'] = (me.loaded.p99 / me.alone.p99).toFixed(2);
    row['cold start'] = `${coldStart.toFixed(0)} ms`;
    await server.close();

    // Under 10 connections, over the network, on a server process of its own: its memory after
    // serving every case is the server's alone (this process also seeded the rows).
    const started = performance.now();
    const served = await startServeProcess(database.url, 1);
    row['serve start'] = `${(performance.now() - started).toFixed(0)} ms`;
    row['serve from'] = served.build === 'dist' ? 'dist/cli.js' : 'tsx (sources)';
    row['RSS at start (serve)'] = `${memoryOf(served.pid).rss.toFixed(0)} MiB`;
    try {
      for (const one of cases) {
        const result = await load(`${served.origin}${one.path}`, {
          headers: headers(one.signedIn),
          durationSeconds: Number(values.seconds),
          connections: 10,
        });
        row[`10 conns: ${one.name}`] =
          result.failures > 0
            ? `${result.failures} failed`
            : `${result.requestsPerSecond.toFixed(0)} req/s, p99 ${result.p99Ms} ms`;
        await settle(served.origin);
        // Where the serve process's memory grows: each case's share, for docs/scale.md.
        const after = memoryOf(served.pid);
        log(
          `  serve RSS after "${one.name}": ${after.rss.toFixed(0)} MiB (peak ${after.peak.toFixed(0)} MiB)`,
        );
      }
      const memory = memoryOf(served.pid);
      row['RSS (serve)'] = `${memory.rss.toFixed(0)} MiB`;
      row['peak RSS (serve)'] = `${memory.peak.toFixed(0)} MiB`;
    } finally {
      await served.close();
    }
    return row;
  } finally {
    await server.close();
    await database.drop();
  }
}

/** One markdown table of the given columns (those a row lacks print as a dash). */
function table(rows: readonly Record<string, string>[], columns: readonly string[]): string {
  const lines = [`| ${columns.join(' | ')} |`, `|${columns.map(() => '---').join('|')}|`];
  for (const row of rows) lines.push(`| ${columns.map((c) => row[c] ?? '-').join(' | ')} |`);
  return lines.join('\n');
}

/** For each dialect, each case's time at the largest size over its time at the smallest. */
function growth(rows: readonly Record<string, string>[], prefix: string): string {
  const lines: string[] = [];
  for (const dialect of dialects) {
    const mine = rows.filter((row) => row.dialect === dialect);
    if (mine.length < 2) continue;
    const [small, large] = [mine[0]!, mine.at(-1)!];
    for (const column of Object.keys(large).filter((c) => c.startsWith(prefix))) {
      const ratio = Number.parseFloat(large[column]!) / Number.parseFloat(small[column]!);
      lines.push(
        `${dialect} ${column.slice(prefix.length)}: ${large.posts} / ${small.posts} = ${ratio.toFixed(2)}`,
      );
    }
  }
  return lines.join('\n');
}

// The serve process measures the compiled CLI, as users run it (about 50 MiB lighter than tsx).
buildUnlessCurrent(log);
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
const keys = Object.keys(rows[0] ?? {});
const key = ['dialect', 'posts'];
console.log(
  table(rows, [
    ...key,
    ...keys.filter((c) => c.startsWith('alone: ') && !c.includes('none') && !c.includes('cursor')),
    'bare count(*)',
    'signed/anon',
    'list/count',
    'signed list/count',
    'sort=title/count',
  ]),
);
console.log();
console.log(
  table(rows, [
    ...key,
    ...keys.filter((c) => c.startsWith('alone: ') && (c.includes('none') || c.includes('cursor'))),
  ]),
);
console.log();
console.log(table(rows, [...key, ...keys.filter((c) => c.startsWith('10 conns: '))]));
console.log();
console.log(
  table(rows, [
    ...key,
    'seeding',
    '/me p99 alone',
    '/me p99 beside 2 deep pages',
    '/me loaded/alone',
    'cold start',
    'serve from',
    'serve start',
    'RSS at start (serve)',
    'RSS (serve)',
    'peak RSS (serve)',
  ]),
);
console.log(`\nlargest / smallest size, alone:\n${growth(rows, 'alone: ')}`);
console.log(
  `\nload average: ${loadavg()
    .map((n) => n.toFixed(2))
    .join(' ')}`,
);
