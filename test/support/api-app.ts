import type { Kysely } from 'kysely';
import { startTestApp, type TestApp, type TestAppOptions } from './app.ts';
import { blogApi } from '../../examples/blog/api.ts';
import { blogMigrations } from '../../examples/blog/migrations.ts';
import { blogPlugins } from '../../examples/blog/citadel.config.ts';
import type { UserRecord } from '../../src/auth/core/users.ts';
import { deploymentCodecs } from '../../src/api/resource/sqids.ts';
import type { ApiConfig } from '../../src/api/resource/types.ts';
import type { CitadelMigration } from '../../src/index.ts';
import { OpenApiResponseChecker } from '../api/support/openapi-responses.ts';

export interface BlogApp extends ApiApp {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the blog's tables are not in the core schema
  db: Kysely<any>;
  /** Statements seen since the last `resetQueries()` (when started with `countQueries`). */
  queries: string[];
}

export interface ApiApp extends TestApp {
  /** Every response of the resource API is checked against the OpenAPI document of its version. */
  responses: OpenApiResponseChecker;
}

/**
 * A test app serving `api`, whose every resource API response is checked against the OpenAPI
 * document: `close()` fails (and with it the test file) when one did not match.
 */
export async function startApiApp(
  api: ApiConfig,
  migrations: CitadelMigration[],
  options: TestAppOptions = {},
): Promise<ApiApp> {
  const checker = new OpenApiResponseChecker(api, {
    ids: { alphabet: options.sqidsAlphabet, minLength: options.sqidsMinLength },
  });
  const { routes, ...rest } = options;
  const t = await startTestApp({
    api,
    migrations,
    ...rest,
    routes: async (app) => {
      checker.install(app);
      await routes?.(app);
    },
  });
  const close = t.close.bind(t);
  t.close = async () => {
    await close();
    if (checker.violations.length > 0)
      throw new Error(`responses that do not match the OpenAPI document:\n${checker.violations.join('\n')}`);
  };
  return Object.assign(t, { responses: checker });
}

/** The demo blog (its API and its pages) on a fresh database of the run's dialect. */
export async function startBlogApp(
  options: TestAppOptions & { countQueries?: boolean } = {},
): Promise<BlogApp> {
  const { countQueries, ...rest } = options;
  const queries: string[] = [];
  const database = countQueries ? { onQuery: (sql: string) => queries.push(sql) } : undefined;
  const t = await startApiApp(blogApi, blogMigrations, { plugins: blogPlugins, ...rest, database });
  return Object.assign(t, { db: t.services.db as Kysely<any>, queries }); // eslint-disable-line @typescript-eslint/no-explicit-any
}

let sequence = 0;

/** Insert posts directly (fast fixtures), returning their raw ids in order. */
export async function insertPosts(
  t: BlogApp,
  author: UserRecord,
  posts: Partial<{ title: string; body: string; status: string; created_at: string }>[],
): Promise<number[]> {
  const ids: number[] = [];
  for (const post of posts) {
    sequence += 1;
    const at = post.created_at ?? new Date(Date.UTC(2026, 0, 1, 0, 0, sequence)).toISOString();
    const values = {
      title: post.title ?? `Post number ${sequence}`,
      body: post.body ?? `Body of post ${sequence}`,
      status: post.status ?? 'published',
      author_id: author.id,
      created_at: at,
      updated_at: at,
    };
    await t.db.insertInto('posts').values(values).execute();
    const row = await t.db
      .selectFrom('posts')
      .select('id')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirstOrThrow();
    ids.push(Number(row.id));
  }
  return ids;
}

export async function insertComments(t: BlogApp, postId: number, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    await t.db
      .insertInto('comments')
      .values({
        post_id: postId,
        author_name: `Reader ${i}`,
        body: `Comment ${i}`,
        created_at: new Date().toISOString(),
      })
      .execute();
  }
}

export async function countRows(t: BlogApp, table: string): Promise<number> {
  const row = await t.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The public (Sqids) id the server gives a raw id of the id space `space` (a table: `posts`, `comments`, `users`). */
export function publicId(t: TestApp, raw: number, space = 'posts'): string {
  return deploymentCodecs(t.services.secrets, t.server.config).of(space).encode(raw);
}
