/**
 * `npm run bench`: the resource engine's `posts` routes against hand-written Fastify + Kysely routes
 * returning the same JSON, from the same database, in the same process, on loopback.
 *
 * Environment: BENCH_DURATION (seconds per case, default 4), BENCH_CONNECTIONS (default 10),
 * BENCH_ROWS (posts, default 100000), BENCH_DIALECTS (default "sqlite,postgres"; PostgreSQL is
 * skipped with a notice when it is not reachable).
 */
import { deepStrictEqual } from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { createServer } from '../src/server.ts';
import type { CitadelOptions } from '../src/config/types.ts';
import { deploymentAlphabet, IdCodec } from '../src/api/sqids.ts';
import { createTestDatabase, type TestDatabase, type TestDialect } from '../test/helpers/databases.ts';
import { BASELINE_PREFIX, registerBaseline } from './baseline.ts';
import { load, type LoadOptions } from './load.ts';
import { seed, type AnyDb } from './seed.ts';
import { printTable, type Row } from './table.ts';

const DURATION = Number(process.env.BENCH_DURATION ?? 4);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const ROWS = Number(process.env.BENCH_ROWS ?? 100_000);
const DIALECTS = (process.env.BENCH_DIALECTS ?? 'sqlite,postgres').split(',') as TestDialect[];
const BULK = 1000;

const log = (line: string) => console.error(`bench: ${line}`);

async function demoOptions(): Promise<CitadelOptions> {
  const module = (await import('../examples/blog/citadel.config.ts')) as {
    default: CitadelOptions | (() => CitadelOptions | Promise<CitadelOptions>);
  };
  const options = typeof module.default === 'function' ? await module.default() : module.default;
  if (!options.api?.resources.some((resource) => resource.name === 'posts')) {
    throw new Error('the demo configuration (examples/blog/citadel.config.ts) has no `posts` resource yet');
  }
  return options;
}

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

async function pair(
  name: string,
  dialect: string,
  engineUrl: string,
  baselineUrl: string,
  options: LoadOptions,
): Promise<Row> {
  log(`${dialect}: ${name}`);
  // Warm-up, not reported: JIT, prepared statements and the database's caches, for both routes.
  for (const url of [engineUrl, baselineUrl]) await load(url, { ...options, durationSeconds: 1 });
  const engine = await load(engineUrl, options);
  const baseline = await load(baselineUrl, options);
  for (const [who, result] of [
    ['engine', engine],
    ['hand-written', baseline],
  ] as const) {
    if (result.failures > 0)
      throw new Error(
        `${dialect} ${name}: ${who} had ${result.failures} failed requests of ${result.requests}`,
      );
  }
  return { name, dialect, engine, baseline };
}

async function benchDialect(dialect: TestDialect, options: CitadelOptions): Promise<Row[]> {
  let database: TestDatabase;
  try {
    database = await createTestDatabase(dialect);
  } catch (error) {
    log(`${dialect} not reachable, skipped (${(error as Error).message})`);
    return [];
  }
  const server = await createServer({
    ...options,
    env: {},
    logger: false,
    seedDemo: false,
    databaseUrl: database.url,
    sessionSecret: 'bench-session-secret-that-is-long-enough-0123456789',
    appUrl: 'http://127.0.0.1',
    dataDir: '/tmp/citadel-bench-data',
  });
  try {
    const { services, config, app } = server;
    const posts = config.api!.resources.find((resource) => resource.name === 'posts')!;
    const db = services.db as unknown as AnyDb;
    const codec = new IdCodec(
      config.sqidsAlphabet ?? deploymentAlphabet(services.secrets),
      config.sqidsMinLength,
    );
    registerBaseline(
      app,
      db,
      codec,
      (posts.formClass?.post ?? posts.formClass?.['*'])!,
      posts.maxLimit ?? 100,
    );

    const author = await services.users.create({
      username: 'bench author',
      email: 'bench@example.com',
      passwordHash: null,
      active: true,
    });
    await seed(db, { posts: ROWS, commentsPerPost: 2, authorId: author.id, draftEvery: 10 }, (line) =>
      log(`${dialect}: ${line}`),
    );
    const { token } = await services.tokens.issue({
      userId: author.id,
      name: 'bench',
      abilities: ['posts:create'],
      expiresAt: null,
    });

    await app.listen({ port: 0, host: '127.0.0.1' });
    const origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const version = config.api!.publications[0]!.version;
    const engineBase = `${origin}${config.api!.apiBaseUrl}/${version}/posts`;
    const baselineBase = `${origin}${BASELINE_PREFIX}/posts`;

    const listQuery = '?page=50&limit=20&sort=-created_at&derive=comments';
    await assertSameAnswer(engineBase + listQuery, baselineBase + listQuery);
    const someId = (
      await db
        .selectFrom('posts')
        .select('id')
        .where('status', '=', 'published')
        .orderBy('id')
        .offset(ROWS / 2)
        .limit(1)
        .executeTakeFirstOrThrow()
    ).id as number;
    const readPath = `/${codec.encode(someId)}`;
    await assertSameAnswer(engineBase + readPath, baselineBase + readPath);

    const bulkBody = JSON.stringify(
      Array.from({ length: BULK }, (_, i) => ({
        title: `Bulk post ${i}`,
        body: `Body of bulk post ${i}.`,
        status: 'published',
      })),
    );
    const bulk = {
      method: 'POST' as const,
      body: bulkBody,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        authorization: `Bearer ${token}`,
      },
    };
    const [engineBulk, baselineBulk] = await Promise.all([json(engineBase, bulk), json(baselineBase, bulk)]);
    for (const [who, answer] of [
      ['engine', engineBulk],
      ['hand-written', baselineBulk],
    ] as const) {
      const data = (answer.body as { data?: unknown[] }).data;
      if (answer.status !== 201 || data?.length !== BULK)
        throw new Error(
          `bulk insert via ${who}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`,
        );
    }

    const get: LoadOptions = {
      durationSeconds: DURATION,
      connections: CONNECTIONS,
      headers: { accept: 'application/json' },
    };
    const post: LoadOptions = { ...bulk, durationSeconds: DURATION, connections: 1 };
    const rows: Row[] = [];
    rows.push(
      await pair(
        'list 20 rows, page+sort+derive=comments',
        dialect,
        engineBase + listQuery,
        baselineBase + listQuery,
        get,
      ),
    );
    rows.push(await pair('single-row read', dialect, engineBase + readPath, baselineBase + readPath, get));
    rows.push(await pair(`bulk insert of ${BULK} rows`, dialect, engineBase, baselineBase, post));
    return rows;
  } finally {
    await server.close();
    await database.drop();
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
