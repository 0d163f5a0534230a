/**
 * `npm run bench`: the resource engine's `posts` routes against hand-written Fastify + Kysely routes
 * returning the same JSON, from the same database, in the same process, on loopback.
 *
 * Environment: BENCH_DURATION (seconds per case, default 4), BENCH_CONNECTIONS (default 10),
 * BENCH_ROWS (posts, default 100000), BENCH_BULK_REQUESTS (bulk inserts per route, default 6),
 * BENCH_DIALECTS (default "sqlite,postgres"; a database that is not reachable is skipped with a
 * notice), BENCH_WORKERS (0 leaves out the workers case).
 *
 * Three baselines: the hand-written routes behind the same hooks; the ceiling (bench/ceiling.ts,
 * bare Fastify and prepared statements); and `citadel serve` with 1 worker against 2.
 */
import { deepStrictEqual } from 'node:assert/strict';
import type { TestDialect } from '../test/support/databases.ts';
import { type LoadOptions } from './load.ts';
import { BULK, demoOptions, LIST_QUERY, startBenchTarget, type BenchTarget } from './setup.ts';
import type { CitadelOptions } from '../src/config/types.ts';
import { printTable, type Row } from './table.ts';
import { pair } from './rounds.ts';
import { CEILING_LIST_QUERY, startCeiling } from './ceiling.ts';
import { SESSION_COOKIE } from '../src/http/sessions/plugin.ts';
import { CURSOR_PLACEHOLDER } from './baseline.ts';
import { startServeProcess } from './serve-process.ts';

const DURATION = Number(process.env.BENCH_DURATION ?? 4);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const ROWS = Number(process.env.BENCH_ROWS ?? 100_000);
const BULK_REQUESTS = Number(process.env.BENCH_BULK_REQUESTS ?? 6);
const DIALECTS = (process.env.BENCH_DIALECTS ?? 'sqlite,postgres').split(',') as TestDialect[];
/** BENCH_WORKERS=0 leaves out the 1-vs-2-workers case (two `citadel serve` processes). */
const WORKERS_CASE = process.env.BENCH_WORKERS !== '0';

const log = (line: string) => console.error(`bench: ${line}`);

async function json(url: string, init?: RequestInit): Promise<{ status: number; body: unknown }> {
  const response = await fetch(url, { ...init, headers: { accept: 'application/json', ...init?.headers } });
  return { status: response.status, body: await response.json() };
}

/** The comparison is only fair if both routes answer the same thing: checked before measuring. */
async function assertSameAnswer(
  engineUrl: string,
  baselineUrl: string,
  headers: Record<string, string> = {},
): Promise<void> {
  const [engine, baseline] = await Promise.all([
    json(engineUrl, { headers }),
    json(baselineUrl, { headers }),
  ]);
  if (engine.status !== 200)
    throw new Error(`${engineUrl} answered ${engine.status}: ${JSON.stringify(engine.body)}`);
  // A signed cursor differs on every answer (its nonce): compare whether there is one.
  for (const answer of [engine, baseline]) {
    const page = (answer.body as { pagination?: { nextCursor?: string | null } }).pagination;
    if (page && typeof page.nextCursor === 'string') page.nextCursor = CURSOR_PLACEHOLDER;
  }
  deepStrictEqual(
    baseline,
    engine,
    `the hand-written route does not return the engine's JSON for ${engineUrl}`,
  );
}

async function measure(dialect: TestDialect, target: BenchTarget): Promise<Row[]> {
  const { engineBase, baselineBase, readPath } = target;
  await assertSameAnswer(engineBase + LIST_QUERY, baselineBase + LIST_QUERY);
  await assertSameAnswer(engineBase + readPath, baselineBase + readPath);
  await assertSameAnswer(engineBase + SPARSE_QUERY, `${baselineBase}-sparse${SPARSE_QUERY}`);
  const bulk = {
    method: 'POST' as const,
    body: target.bulkBody,
    headers: {
      'content-type': 'application/json',
      accept: 'application/json',
      authorization: `Bearer ${target.token}`,
    },
  };
  for (const [who, url] of [
    ['engine', engineBase],
    ['hand-written', baselineBase],
  ] as const) {
    const answer = await json(url, bulk);
    const data = (answer.body as { data?: unknown[] }).data;
    if (answer.status !== 201 || data?.length !== BULK) {
      throw new Error(
        `bulk insert via ${who}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`,
      );
    }
  }
  const get: LoadOptions = {
    durationSeconds: DURATION,
    connections: CONNECTIONS,
    headers: { accept: 'application/json' },
  };
  // Bulk inserts take seconds each on some databases: a fixed number of requests, one at a time.
  const post: LoadOptions = { ...bulk, durationSeconds: DURATION, amount: BULK_REQUESTS, connections: 1 };
  return [
    await pair(
      'list 20 rows, page+sort+derive=comments',
      dialect,
      engineBase + LIST_QUERY,
      baselineBase + LIST_QUERY,
      get,
    ),
    await pair('single-row read', dialect, engineBase + readPath, baselineBase + readPath, get),
    await pair(
      'filtered sparse list, count=none, page 50',
      dialect,
      engineBase + SPARSE_QUERY,
      `${baselineBase}-sparse${SPARSE_QUERY}`,
      get,
    ),
    await pair(`bulk insert of ${BULK} rows`, dialect, engineBase, baselineBase, post),
    ...(await measureCountAndCursor(dialect, target, get)),
    // The ceiling's aims name SQLite and PostgreSQL; it has no MySQL/MariaDB routes.
    ...(dialect === 'mysql' ? [] : await measureAgainstCeiling(dialect, target, get)),
  ];
}

/** A filtered, sparse list without a count: what a client of a big table would ask. */
const SPARSE_QUERY = '?pinned=false&fields=title,created_at&sort=-created_at&count=none&page=50&limit=20';

/** The page query of the count and cursor cases: 20 rows by creation date, no derive. */
const PAGE_QUERY = '?limit=20&sort=-created_at';

/** The `nextCursor` of an offset page: a cursor that opens the page after it. */
async function cursorAfterPage(engineBase: string, page: number): Promise<string> {
  const answer = await json(`${engineBase}${PAGE_QUERY}&page=${page}&count=none`);
  const cursor = (answer.body as { pagination?: { nextCursor?: string | null } }).pagination?.nextCursor;
  if (answer.status !== 200 || !cursor) throw new Error(`no cursor after page ${page}: ${answer.status}`);
  return cursor;
}

/**
 * Engine against engine, in the same run: `count=none` against `count=exact` on the same page, and
 * a keyset page deep in the table against the second page by cursor (a deep OFFSET page as well,
 * for scale).
 */
async function measureCountAndCursor(dialect: TestDialect, target: BenchTarget, get: LoadOptions) {
  const { engineBase } = target;
  // Nine posts in ten are published (bench/seed.ts): the deepest full page, less a margin.
  const deepPage = Math.max(2, Math.floor((ROWS * 0.9) / 20) - 5);
  const shallow = await cursorAfterPage(engineBase, 1);
  const deep = await cursorAfterPage(engineBase, deepPage - 1);
  const byCursor = (cursor: string) =>
    `${engineBase}${PAGE_QUERY}&count=none&cursor=${encodeURIComponent(cursor)}`;
  return [
    await pair(
      'list page 50: count=none / count=exact',
      dialect,
      `${engineBase}${PAGE_QUERY}&page=50&count=none`,
      `${engineBase}${PAGE_QUERY}&page=50&count=exact`,
      get,
    ),
    await pair(`cursor page ${deepPage} / cursor page 2`, dialect, byCursor(deep), byCursor(shallow), get),
    await pair(
      `cursor page ${deepPage} / offset page ${deepPage}`,
      dialect,
      byCursor(deep),
      `${engineBase}${PAGE_QUERY}&count=none&page=${deepPage}`,
      get,
    ),
  ];
}

/** `options` asking for answers in `language`. */
function inLanguage(options: LoadOptions, language: string): LoadOptions {
  return { ...options, headers: { ...options.headers, 'accept-language': language } };
}

/** `options` asking for an HTML page, as a browser does. */
function asPage(options: LoadOptions): LoadOptions {
  return { ...options, headers: { ...options.headers, accept: 'text/html' } };
}

/** The engine against the bare ceiling routes, and signed-in reads (cookie, bearer token) against anonymous ones. */
async function measureAgainstCeiling(dialect: TestDialect, target: BenchTarget, get: LoadOptions) {
  const ceiling = await startCeiling(dialect, target.databaseUrl, target.codec, SESSION_COOKIE);
  try {
    const { engineBase, readPath } = target;
    const session = { ...get, headers: { ...get.headers, cookie: target.sessionCookie } };
    const bearer = { ...get, headers: { ...get.headers, authorization: `Bearer ${target.token}` } };
    await assertSameAnswer(engineBase + CEILING_LIST_QUERY, ceiling.base + '/posts' + CEILING_LIST_QUERY);
    await assertSameAnswer(engineBase + readPath, ceiling.base + '/posts' + readPath);
    await assertSameAnswer(target.origin + '/me', ceiling.base + '/me', session.headers);
    await assertSameAnswer(engineBase + readPath, engineBase + readPath, bearer.headers);
    await assertSameAnswer(engineBase + readPath, engineBase + readPath, session.headers);
    const mounted = target.mountedCeilingBase!;
    await assertSameAnswer(mounted + '/posts' + readPath, ceiling.base + '/posts' + readPath);
    await assertSameAnswer(mounted + '/hello', ceiling.base + '/hello');
    return [
      // Citadel's global pipeline alone: the same hand-written handlers inside Citadel and bare.
      await pair(
        'ceiling read in Citadel / bare Fastify',
        dialect,
        mounted + '/posts' + readPath,
        ceiling.base + '/posts' + readPath,
        get,
      ),
      await pair(
        'constant JSON in Citadel / bare Fastify',
        dialect,
        mounted + '/hello',
        ceiling.base + '/hello',
        get,
      ),
      await pair(
        'single read / ceiling',
        dialect,
        engineBase + readPath,
        ceiling.base + '/posts' + readPath,
        get,
      ),
      await pair(
        'list 20 with total, page 50 / ceiling',
        dialect,
        engineBase + CEILING_LIST_QUERY,
        ceiling.base + '/posts' + CEILING_LIST_QUERY,
        get,
      ),
      await pair(
        'GET /me (cookie) / session-lookup ceiling',
        dialect,
        target.origin + '/me',
        ceiling.base + '/me',
        session,
      ),
      // What writing in another language costs on the hot path: the same answers in German.
      await pair(
        'GET /me in de / en',
        dialect,
        target.origin + '/me',
        target.origin + '/me',
        inLanguage(session, 'de'),
        inLanguage(session, 'en'),
      ),
      await pair(
        'a page (GET /set-password) in de / en',
        dialect,
        target.origin + '/set-password',
        target.origin + '/set-password',
        asPage(inLanguage(session, 'de')),
        asPage(inLanguage(session, 'en')),
      ),
      await pair(
        'signed-in read (cookie) / anonymous read',
        dialect,
        engineBase + readPath,
        engineBase + readPath,
        session,
        get,
      ),
      await pair(
        'bearer-token read / anonymous read',
        dialect,
        engineBase + readPath,
        engineBase + readPath,
        bearer,
        get,
      ),
    ];
  } finally {
    await ceiling.close();
  }
}

/** `citadel serve --workers 2` against `--workers 1` on the same database: the single read. */
async function measureWorkers(dialect: TestDialect, target: BenchTarget, get: LoadOptions): Promise<Row> {
  const one = await startServeProcess(target.databaseUrl, 1);
  const two = await startServeProcess(target.databaseUrl, 2);
  try {
    const path = new URL(target.engineBase).pathname + target.readPath;
    return await pair(
      'single read, 2 workers / 1 worker',
      dialect,
      two.origin + path,
      one.origin + path,
      get,
    );
  } finally {
    await one.close();
    await two.close();
  }
}

async function benchDialect(dialect: TestDialect, options: CitadelOptions): Promise<Row[]> {
  let target: BenchTarget;
  try {
    target = await startBenchTarget(dialect, options, ROWS, (line) => log(`${dialect}: ${line}`));
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'ECONNREFUSED' || code === '28P01' || code === 'ENOTFOUND') {
      log(`${dialect} not reachable, skipped (${(error as Error).message})`);
      return [];
    }
    throw error;
  }
  try {
    const rows = await measure(dialect, target);
    if (WORKERS_CASE) {
      rows.push(
        await measureWorkers(dialect, target, {
          durationSeconds: DURATION,
          connections: CONNECTIONS,
          headers: { accept: 'application/json' },
        }),
      );
    }
    return rows;
  } finally {
    await target.close();
  }
}

async function main(): Promise<void> {
  const options = await demoOptions();
  log(`${ROWS} posts, ${DURATION} s per case, ${CONNECTIONS} connections (bulk: 1), loopback only`);
  const rows: Row[] = [];
  for (const dialect of DIALECTS) rows.push(...(await benchDialect(dialect, options)));
  printTable(rows);
}

main().catch((error: unknown) => {
  console.error(`bench failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
