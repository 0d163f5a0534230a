import type { FastifyInstance } from 'fastify';
import type { TObject } from '@sinclair/typebox';
import { sql } from 'kysely';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { requireAbility } from '../src/auth/core/caller.ts';
import type { IdCodecs } from '../src/api/resource/sqids.ts';
import { isMariaDb } from '../src/db/mariadb.ts';
import { PARAMETER_LIMITS } from '../src/db/insert.ts';
import type { Dialect } from '../src/db/url.ts';
import type { AnyDb } from './seed.ts';

/**
 * The hand-written comparison: the routes a developer would write for exactly these requests with
 * Fastify and Kysely, no configuration, returning the same JSON as the engine's `posts` routes.
 * They run in the same process and behind the same global hooks (session, caller, CSRF, helmet).
 */
export const BASELINE_PREFIX = '/bench-baseline';

// author_id is a hidden column in the demo: selected for nothing, sent never.
/** Stands for the engine's signed cursor, which this route does not make. */
export const CURSOR_PLACEHOLDER = '<cursor>';

const POST_COLUMNS = ['id', 'title', 'body', 'status', 'pinned', 'tags', 'created_at', 'updated_at'] as const;
const COMMENT_COLUMNS = ['id', 'post_id', 'author_name', 'body', 'created_at'] as const;

type Row = Record<string, unknown>;

function positiveInteger(value: unknown, fallback: number): number | null {
  if (value === undefined) return fallback;
  return typeof value === 'string' && /^[1-9][0-9]{0,8}$/.test(value) ? Number(value) : null;
}

export function registerBaseline(
  app: FastifyInstance,
  db: AnyDb,
  dialect: Dialect,
  codecs: IdCodecs,
  postValidator: TObject,
  maxLimit: number,
): void {
  // One id space per table, as the engine's: a comment's post_id is encoded as a post id.
  const codec = codecs.of('posts');
  const commentCodec = codecs.of('comments');
  const post = (row: Row) => ({
    id: codec.encode(row.id as number),
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
  const comment = (row: Row) => ({
    id: commentCodec.encode(row.id as number),
    post_id: codec.encode(row.post_id as number),
    author_name: row.author_name,
    body: row.body,
    created_at: row.created_at,
  });

  // GET ?page=&limit=&sort=-created_at&derive=comments, anonymous: published posts only.
  app.get(`${BASELINE_PREFIX}/posts`, async (request, reply) => {
    const query = request.query as Record<string, string | undefined>;
    const page = positiveInteger(query.page, 1);
    const requested = positiveInteger(query.limit, 20);
    if (page === null || requested === null || (query.sort ?? '-created_at') !== '-created_at') {
      return reply.code(400).send({ status: 400 });
    }
    const limit = Math.min(requested, maxLimit);
    const withComments = query.derive === 'comments';
    const counted = await db
      .selectFrom('posts')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('status', '=', 'published')
      .executeTakeFirstOrThrow();
    const total = Number(counted.n);
    const rows = (await db
      .selectFrom('posts')
      .select([...POST_COLUMNS])
      .where('status', '=', 'published')
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .offset((page - 1) * limit)
      .execute()) as Row[];
    const data: Row[] = rows.map(post);
    if (withComments && rows.length > 0) {
      const children = (await db
        .selectFrom('comments')
        .select([...COMMENT_COLUMNS])
        .where(
          'post_id',
          'in',
          rows.map((row) => row.id),
        )
        // The same visibility rule the demo's comments hook applies (comments of visible posts only).
        .where((eb) =>
          eb.exists(
            db
              .selectFrom('posts')
              .select(sql.lit(1).as('one'))
              .whereRef('posts.id', '=', 'comments.post_id')
              .where('posts.status', '=', 'published'),
          ),
        )
        .orderBy('id', 'asc')
        .execute()) as Row[];
      const byPost = new Map<unknown, Row[]>(rows.map((row) => [Number(row.id), []]));
      for (const child of children) byPost.get(Number(child.post_id))!.push(comment(child));
      rows.forEach((row, i) => (data[i]!.comments = byPost.get(Number(row.id))));
    }
    const totalPages = Math.ceil(total / limit);
    return reply.send({
      status: 'success',
      data,
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
    });
  });

  // GET ?pinned=false&fields=title,created_at&sort=-created_at&count=none&page=&limit=: a filtered,
  // sparse list without a count, as SPARSE_QUERY asks the engine (published posts only).
  app.get(`${BASELINE_PREFIX}/posts-sparse`, async (request, reply) => {
    const query = request.query as Record<string, string | undefined>;
    const page = positiveInteger(query.page, 1);
    const requested = positiveInteger(query.limit, 20);
    if (page === null || requested === null || query.pinned !== 'false')
      return reply.code(400).send({ status: 400 });
    const limit = Math.min(requested, maxLimit);
    const rows = (await db
      .selectFrom('posts')
      .select(['id', 'title', 'created_at'])
      .where('status', '=', 'published')
      // Stored 0/1 (a PostgreSQL boolean column takes the 0 as well).
      .where('pinned', '=', 0)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit + 1)
      .offset((page - 1) * limit)
      .execute()) as Row[];
    const hasMore = rows.length > limit;
    return reply.send({
      status: 'success',
      data: rows.slice(0, limit).map((row) => ({
        id: codec.encode(row.id as number),
        title: row.title,
        created_at: row.created_at,
      })),
      pagination: {
        page,
        limit,
        total: null,
        totalPages: null,
        hasMore,
        nextPage: hasMore ? page + 1 : null,
        prevPage: page > 1 ? page - 1 : null,
        nextCursor: hasMore ? CURSOR_PLACEHOLDER : null,
      },
    });
  });

  app.get(`${BASELINE_PREFIX}/posts/:id`, async (request, reply) => {
    const id = codec.decode((request.params as { id: string }).id);
    const row =
      id === null
        ? undefined
        : ((await db
            .selectFrom('posts')
            .select([...POST_COLUMNS])
            .where('id', '=', id)
            .where('status', '=', 'published')
            .executeTakeFirst()) as Row | undefined);
    if (!row) return reply.code(404).send({ status: 404 });
    return reply.send({ status: 'success', data: post(row) });
  });

  // POST an array of posts: validated, then inserted with multi-row INSERT … RETURNING, as
  // many rows a statement as the driver's parameter limit allows, in one transaction (MySQL, which
  // has no RETURNING, one row at a time for its insertId).
  const check = TypeCompiler.Compile(postValidator);
  const parameterLimit = PARAMETER_LIMITS[dialect];
  app.post(`${BASELINE_PREFIX}/posts`, async (request, reply) => {
    const caller = requireAbility(request, 'posts:create');
    const items = request.body;
    if (!Array.isArray(items) || items.length > 1000) return reply.code(400).send({ status: 400 });
    const invalid = items.findIndex((item) => !check.Check(item));
    if (invalid >= 0)
      return reply.code(422).send({ status: 422, invalid_params: [{ name: `[${invalid}]` }] });
    const now = new Date().toISOString();
    // (author_id is stored but, as a hidden column, never sent back.)
    const rows = (items as Row[]).map((item) => ({
      status: 'draft',
      ...item,
      author_id: caller.user.id,
      created_at: now,
      updated_at: now,
    }));
    const returning = dialect !== 'mysql' || (await isMariaDb(db));
    const created = await db.transaction().execute(async (trx) => {
      const out: Row[] = [];
      if (!returning) {
        for (const row of rows)
          out.push({
            ...row,
            id: Number((await trx.insertInto('posts').values(row).executeTakeFirstOrThrow()).insertId),
          });
        return out;
      }
      const perStatement = Math.floor(
        parameterLimit / Math.max(...rows.map((row) => Object.keys(row).length)),
      );
      for (let first = 0; first < rows.length; first += perStatement) {
        const chunk = rows.slice(first, first + perStatement);
        // Executed as compiled: Kysely's execute() drops RETURNING rows on its MySQL adapter.
        // The stored rows (defaults included) are what the answer shows, as the engine's.
        const insert = trx
          .insertInto('posts')
          .values(chunk)
          .returning([...POST_COLUMNS])
          .compile();
        const stored = (await trx.executeQuery<Row>(insert)).rows;
        out.push(...[...stored].sort((a, b) => Number(a.id) - Number(b.id)));
      }
      return out;
    });
    return reply.code(201).send({ status: 'success', data: created.map(post) });
  });
}
