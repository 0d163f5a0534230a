import type { AddressInfo } from 'node:net';
import { createServer, type CitadelServer } from '../src/app/server.ts';
import type { CitadelOptions } from '../src/config/types.ts';
import { deploymentCodecs, type IdCodec } from '../src/api/resource/sqids.ts';
import { createTestDatabase, type TestDialect } from '../test/support/databases.ts';
import { BASELINE_PREFIX, registerBaseline } from './baseline.ts';
import { seed, type AnyDb } from './seed.ts';
import { randomToken, sha256Hex } from '../src/core/crypto.ts';
import { SESSION_COOKIE } from '../src/http/sessions/plugin.ts';
import { ceilingQueries, registerCeilingRoutes, type Queries } from './ceiling.ts';

/** Where the ceiling's handlers are mounted inside Citadel (SQLite and PostgreSQL). */
export const MOUNTED_CEILING_PREFIX = '/bench-ceiling';

export const BULK = 1000;
export const BENCH_SECRET = 'bench-session-secret-that-is-long-enough-0123456789';
export const LIST_QUERY = '?page=50&limit=20&sort=-created_at&derive=comments';

export interface BenchTarget {
  server: CitadelServer;
  db: AnyDb;
  /** `http://127.0.0.1:PORT/api/v1/posts` and the hand-written twin. */
  engineBase: string;
  baselineBase: string;
  /** `/<sqid>` of a published post in the middle of the table. */
  readPath: string;
  /** A bearer token with `posts:create`, for the bulk insert. */
  token: string;
  bulkBody: string;
  /** `http://127.0.0.1:PORT` of the engine. */
  origin: string;
  databaseUrl: string;
  codec: IdCodec;
  /** `citadel_session=…` of a stored session of the bench author. */
  sessionCookie: string;
  /**
   * `http://127.0.0.1:PORT/bench-ceiling`: the ceiling's own handlers mounted inside Citadel, behind
   * its global pipeline only (SQLite and PostgreSQL; undefined on MySQL/MariaDB).
   */
  mountedCeilingBase?: string;
  close(): Promise<void>;
}

export async function demoOptions(): Promise<CitadelOptions> {
  const module = (await import('../examples/blog/citadel.config.ts')) as {
    default: CitadelOptions | (() => CitadelOptions | Promise<CitadelOptions>);
  };
  const options = typeof module.default === 'function' ? await module.default() : module.default;
  if (!options.api?.resources.some((resource) => resource.name === 'posts')) {
    throw new Error('the demo configuration (examples/blog/citadel.config.ts) has no `posts` resource');
  }
  return options;
}

/**
 * A fresh database of `dialect` with `rows` posts (two comments each), the demo server on a
 * loopback port with the hand-written routes beside the engine's. Throws when the database is
 * not reachable.
 */
export async function startBenchTarget(
  dialect: TestDialect,
  options: CitadelOptions,
  rows: number,
  log: (line: string) => void,
): Promise<BenchTarget> {
  const database = await createTestDatabase(dialect);
  const server = await createServer({
    ...options,
    env: {},
    logger: false,
    seedDemo: false,
    databaseUrl: database.url,
    sessionSecret: BENCH_SECRET,
    appUrl: 'http://127.0.0.1',
    dataDir: '/tmp/citadel-bench-data',
  });
  let mountedQueries: Queries | undefined;
  const close = async () => {
    await server.close();
    await mountedQueries?.close();
    await database.drop();
  };
  try {
    const { services, config, app } = server;
    const api = config.api!;
    const posts = api.resources.find((resource) => resource.name === 'posts')!;
    const db = services.db as unknown as AnyDb;
    // The engine's id codecs (one per table), built the way the engine builds them, so both
    // routes send the same ids.
    const codecs = deploymentCodecs(services.secrets, config);
    const codec = codecs.of('posts');
    registerBaseline(
      app,
      db,
      services.dialect,
      codecs,
      (posts.formClass?.post ?? posts.formClass?.['*'])!,
      posts.maxLimit ?? 100,
    );

    if (dialect !== 'mysql') {
      mountedQueries = await ceilingQueries(dialect, database.url);
      registerCeilingRoutes(app, MOUNTED_CEILING_PREFIX, mountedQueries, codec, SESSION_COOKIE);
    }

    const author = await services.users.create({
      username: 'bench author',
      email: 'bench@example.com',
      passwordHash: null,
      active: true,
    });
    await seed(db, { posts: rows, commentsPerPost: 2, authorId: author.id, draftEvery: 10 }, log);
    const { token } = await services.tokens.issue({
      userId: author.id,
      name: 'bench',
      abilities: ['posts:create'],
      expiresAt: null,
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const someId = (
      await db
        .selectFrom('posts')
        .select('id')
        .where('status', '=', 'published')
        .orderBy('id')
        .offset(Math.floor(rows / 2))
        .limit(1)
        .executeTakeFirstOrThrow()
    ).id as number;
    const bulkBody = JSON.stringify(
      Array.from({ length: BULK }, (_, i) => ({
        title: `Bulk post ${i}`,
        body: `Body of bulk post ${i}.`,
        status: 'published',
      })),
    );
    const rawSession = randomToken(32);
    await services.sessions.insert(sha256Hex(rawSession), {
      userId: author.id,
      data: {},
      expiresAt: new Date(Date.now() + config.limits.sessionIdleTtl * 1000).toISOString(),
    });
    return {
      server,
      db,
      origin,
      databaseUrl: database.url,
      codec,
      sessionCookie: `${SESSION_COOKIE}=${rawSession}`,
      ...(mountedQueries ? { mountedCeilingBase: origin + MOUNTED_CEILING_PREFIX } : {}),
      engineBase: `${origin}${api.apiBaseUrl}/${api.publications[0]!.version}/posts`,
      baselineBase: `${origin}${BASELINE_PREFIX}/posts`,
      readPath: `/${codec.encode(someId)}`,
      token,
      bulkBody,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
