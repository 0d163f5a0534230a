/**
 * `npm run bench`: the resource engine's `posts` routes against hand-written Fastify + Kysely routes
 * returning the same JSON, from the same database, in the same process, on loopback.
 *
 * Environment: BENCH_DURATION (seconds per case, default 4), BENCH_CONNECTIONS (default 10),
 * BENCH_ROWS (posts, default 100000), BENCH_BULK_REQUESTS (bulk inserts per route, default 6), BENCH_DIALECTS (default "sqlite,postgres"; a database that
 * is not reachable is skipped with a notice).
 */
import { deepStrictEqual } from 'node:assert/strict';
import { loadavg } from 'node:os';
import type { TestDialect } from '../test/helpers/databases.ts';
import { load, type LoadOptions, type LoadResult } from './load.ts';
import { BULK, demoOptions, LIST_QUERY, startBenchTarget, type BenchTarget } from './setup.ts';
import type { CitadelOptions } from '../src/config/types.ts';
import { printTable, type Row } from './table.ts';

const DURATION = Number(process.env.BENCH_DURATION ?? 4);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const ROWS = Number(process.env.BENCH_ROWS ?? 100_000);
const BULK_REQUESTS = Number(process.env.BENCH_BULK_REQUESTS ?? 6);
const DIALECTS = (process.env.BENCH_DIALECTS ?? 'sqlite,postgres').split(',') as TestDialect[];

const log = (line: string) => console.error(`bench: ${line}`);

async function json(url: string, init?: RequestInit): Promise<{ status: number; body: unknown }> {
  const response = await fetch(url, { ...init, headers: { accept: 'application/json', ...init?.headers } });
  return { status: response.status, body: await response.json() };
}

/** The comparison is only fair if both routes answer the same thing: checked before measuring. */
async function assertSameAnswer(engineUrl: string, baselineUrl: string): Promise<void> {
  const [engine, baseline] = await Promise.all([json(engineUrl), json(baselineUrl)]);
  if (engine.status !== 200)
    throw new Error(`${engineUrl} answered ${engine.status}: ${JSON.stringify(engine.body)}`);
  deepStrictEqual(
    baseline,
    engine,
    `the hand-written route does not return the engine's JSON for ${engineUrl}`,
  );
}

/** Several short rounds, engine and hand-written alternating, so load from elsewhere hits both alike. */
const ROUNDS = 4;

function combine(results: LoadResult[]): LoadResult {
  const requests = results.reduce((sum, r) => sum + r.requests, 0);
  const seconds = results.reduce((sum, r) => sum + r.seconds, 0);
  return {
    requests,
    seconds,
    requestsPerSecond: requests / seconds,
    // The worst round's p99: a conservative figure.
    p99Ms: Math.max(...results.map((r) => r.p99Ms)),
    failures: results.reduce((sum, r) => sum + r.failures, 0),
  };
}

async function pair(
  name: string,
  dialect: string,
  engineUrl: string,
  baselineUrl: string,
  options: LoadOptions,
): Promise<Row> {
  log(`${dialect}: ${name}`);
  // Warm-up, not reported: JIT, prepared statements and the database's caches, for both routes.
  for (const url of [engineUrl, baselineUrl])
    await load(url, { ...options, durationSeconds: 1, amount: options.amount ? 1 : undefined });
  const round = {
    ...options,
    durationSeconds: options.durationSeconds / ROUNDS,
    ...(options.amount ? { amount: Math.ceil(options.amount / ROUNDS) } : {}),
  };
  const engineRuns: LoadResult[] = [];
  const baselineRuns: LoadResult[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    // Alternate who goes first as well.
    if (i % 2 === 0) {
      engineRuns.push(await load(engineUrl, round));
      baselineRuns.push(await load(baselineUrl, round));
    } else {
      baselineRuns.push(await load(baselineUrl, round));
      engineRuns.push(await load(engineUrl, round));
    }
  }
  const engine = combine(engineRuns);
  const baseline = combine(baselineRuns);
  for (const [who, result] of [
    ['engine', engine],
    ['hand-written', baseline],
  ] as const) {
    if (result.failures > 0)
      throw new Error(
        `${dialect} ${name}: ${who} had ${result.failures} failed requests of ${result.requests}`,
      );
  }
  return { name, dialect, engine, baseline, load: loadavg()[0]! };
}

async function measure(dialect: TestDialect, target: BenchTarget): Promise<Row[]> {
  const { engineBase, baselineBase, readPath } = target;
  await assertSameAnswer(engineBase + LIST_QUERY, baselineBase + LIST_QUERY);
  await assertSameAnswer(engineBase + readPath, baselineBase + readPath);
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
    await pair(`bulk insert of ${BULK} rows`, dialect, engineBase, baselineBase, post),
  ];
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
    return await measure(dialect, target);
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
