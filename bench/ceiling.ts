import { CURSOR_PLACEHOLDER } from './baseline.ts';
import Fastify, { type FastifyInstance } from 'fastify';
import type { AddressInfo } from 'node:net';
import { createHash } from 'node:crypto';
import type { IdCodec } from '../src/api/resource/sqids.ts';
import type { TestDialect } from '../test/support/databases.ts';

/**
 * The ceiling: what the hardware gives for exactly these answers. A bare Fastify instance (no
 * hooks, no plugins) on its own port, one prepared statement per query (better-sqlite3 statements
 * prepared once; named PostgreSQL statements, prepared once per connection), the same JSON and
 * the same visibility rule as the engine. The engine/ceiling ratio is what the engine costs.
 */
export const CEILING_LIST_QUERY = '?page=50&limit=20&sort=-created_at';

const POST_COLUMNS = 'id, title, body, status, pinned, tags, created_at, updated_at';

export interface Queries {
  postById(id: number): Promise<Record<string, unknown> | undefined>;
  countPublished(): Promise<number>;
  pagePublished(limit: number, offset: number): Promise<Record<string, unknown>[]>;
  sessionUser(idHash: string, now: string): Promise<Record<string, unknown> | undefined>;
  close(): Promise<void>;
}

const SQL = {
  postById: `select ${POST_COLUMNS} from posts where id = ? and status = 'published'`,
  count: `select count(*) as n from posts where status = 'published'`,
  page: `select ${POST_COLUMNS} from posts where status = 'published' order by created_at desc, id desc limit ? offset ?`,
  // The session and its user in one statement: what GET /me needs, nothing else.
  sessionUser:
    'select u.id, u.username, u.email, u.active from sessions s join users u on u.id = s.user_id ' +
    'where s.id = ? and s.expires_at > ? and u.active = 1',
};

async function sqliteQueries(file: string): Promise<Queries> {
  const { default: SQLite } = await import('better-sqlite3');
  const db = new SQLite(file, { readonly: true });
  const postById = db.prepare(SQL.postById);
  const count = db.prepare(SQL.count);
  const page = db.prepare(SQL.page);
  const sessionUser = db.prepare(SQL.sessionUser);
  return {
    postById: async (id) => postById.get(id) as Record<string, unknown> | undefined,
    countPublished: async () => (count.get() as { n: number }).n,
    pagePublished: async (limit, offset) => page.all(limit, offset) as Record<string, unknown>[],
    sessionUser: async (hash, now) => sessionUser.get(hash, now) as Record<string, unknown> | undefined,
    close: async () => {
      db.close();
    },
  };
}

async function postgresQueries(url: string): Promise<Queries> {
  const pg = (await import('pg')).default;
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  const numbered = (text: string) => {
    let n = 0;
    return text.replace(/\?/g, () => `$${++n}`);
  };
  const run = async (name: string, text: string, values: unknown[]) =>
    (await pool.query({ name, text: numbered(text), values })).rows as Record<string, unknown>[];
  return {
    postById: async (id) => (await run('ceiling_post', SQL.postById, [id]))[0],
    countPublished: async () => Number((await run('ceiling_count', SQL.count, []))[0]!.n),
    pagePublished: (limit, offset) => run('ceiling_page', SQL.page, [limit, offset]),
    sessionUser: async (hash, now) => (await run('ceiling_session', SQL.sessionUser, [hash, now]))[0],
    close: () => pool.end(),
  };
}

export interface Ceiling {
  base: string;
  close(): Promise<void>;
}

/** The ceiling's prepared statements on `databaseUrl` (SQLite or PostgreSQL). */
export async function ceilingQueries(dialect: TestDialect, databaseUrl: string): Promise<Queries> {
  if (dialect === 'mysql') throw new Error('the ceiling runs on SQLite and PostgreSQL');
  return dialect === 'sqlite'
    ? await sqliteQueries(databaseUrl.slice('sqlite:'.length))
    : await postgresQueries(databaseUrl);
}

/**
 * The ceiling's hand-written handlers (/posts, /posts/:id, /me, /hello) under `prefix`: on the bare
 * instance here, and the same functions mounted inside Citadel (bench/setup.ts) to measure what
 * Citadel's global request pipeline costs a route it did not write.
 */
export function registerCeilingRoutes(
  app: FastifyInstance,
  prefix: string,
  queries: Queries,
  codec: IdCodec,
  sessionCookie: string,
): void {
  const post = (row: Record<string, unknown>) => ({
    id: codec.encode(Number(row.id)),
    title: row.title,
    body: row.body,
    status: row.status,
    // Stored 0/1 on SQLite, a boolean on PostgreSQL; tags are JSON text (or NULL).
    pinned: row.pinned === true || row.pinned === 1,
    tags: row.tags === null || row.tags === undefined ? null : (JSON.parse(row.tags as string) as unknown),
    created_at: row.created_at,
    updated_at: row.updated_at,
    excerpt: (row.body as string).slice(0, 100),
  });

  app.get(`${prefix}/posts/:id`, async (request, reply) => {
    const id = codec.decode((request.params as { id: string }).id);
    const row = id === null ? undefined : await queries.postById(id);
    if (!row) return reply.code(404).send({ status: 404 });
    return { status: 'success', data: post(row) };
  });

  app.get(`${prefix}/posts`, async (request) => {
    const query = request.query as Record<string, string>;
    const page = Number(query.page ?? 1);
    const limit = Math.min(Number(query.limit ?? 20), 50);
    const [total, rows] = await Promise.all([
      queries.countPublished(),
      queries.pagePublished(limit, (page - 1) * limit),
    ]);
    const totalPages = Math.ceil(total / limit);
    return {
      status: 'success',
      data: rows.map(post),
      pagination: {
        page,
        limit,
        total,
        totalPages,
        hasMore: page < totalPages,
        nextPage: page < totalPages ? page + 1 : null,
        prevPage: page > 1 ? page - 1 : null,
        // The engine signs a keyset cursor here; this route does not (bench/run.ts compares presence).
        nextCursor: page < totalPages ? CURSOR_PLACEHOLDER : null,
      },
    };
  });

  const cookiePattern = new RegExp(`(?:^|;\\s*)${sessionCookie}=([^;]+)`);
  app.get(`${prefix}/me`, async (request, reply) => {
    const raw = cookiePattern.exec(request.headers.cookie ?? '')?.[1];
    const hash = raw ? createHash('sha256').update(raw).digest('hex') : undefined;
    const user = hash ? await queries.sessionUser(hash, new Date().toISOString()) : undefined;
    reply.header('cache-control', 'no-store');
    if (!user) return reply.code(401).send({ status: 401 });
    return {
      action: 'me',
      status: 'success',
      statusCode: 200,
      user: { id: Number(user.id), username: user.username, email: user.email, active: true },
      // The demo's organizations plugin adds the active organization; the bench's session has
      // none, so the engine reads nothing more for it either.
      organization: null,
    };
  });

  // No database, no work: what is left is the HTTP pipeline alone.
  app.get(`${prefix}/hello`, async () => ({ status: 'success', data: { hello: 'world' } }));
}

/** The ceiling routes on a loopback port: /posts, /posts/:id, /me, /hello. */
export async function startCeiling(
  dialect: TestDialect,
  databaseUrl: string,
  codec: IdCodec,
  sessionCookie: string,
): Promise<Ceiling> {
  const queries = await ceilingQueries(dialect, databaseUrl);
  const app: FastifyInstance = Fastify({ logger: false });
  registerCeilingRoutes(app, '', queries, codec, sessionCookie);

  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    async close() {
      await app.close();
      await queries.close();
    },
  };
}
