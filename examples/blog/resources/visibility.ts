import { sql } from 'kysely';
import type { HookContext, ResourceQuery, RowAlternative } from '../../../src/index.ts';

/**
 * Which posts a caller may see: anonymous callers the published ones, signed-in callers those plus
 * their own drafts. Writes (put, patch, delete) reach only the caller's own posts.
 */
export function scopePosts(query: ResourceQuery, ctx: HookContext, table = 'posts'): ResourceQuery {
  const user = ctx.user;
  if (ctx.verb !== 'get') {
    return user ? query.where(`${table}.author_id`, '=', user.id) : query.where(sql<boolean>`1 = 0`);
  }
  if (!user) return query.where(`${table}.status`, '=', 'published');
  return query.where((eb) =>
    eb.or([eb(`${table}.status`, '=', 'published'), eb(`${table}.author_id`, '=', user.id)]),
  );
}

/**
 * The signed-in list rule of scopePosts as two alternatives that do not overlap, each served by an
 * index (status, id) and (author_id): the engine lists them with UNION ALL and sums their counts,
 * instead of an OR that no index serves. Anonymous reads and writes keep scopePosts.
 */
export function postAlternatives(ctx: HookContext): RowAlternative[] | null {
  const user = ctx.user;
  if (ctx.verb !== 'get' || !user) return null;
  return [
    (query) => query.where('posts.status', '=', 'published'),
    (query) => query.where('posts.status', '<>', 'published').where('posts.author_id', '=', user.id),
  ];
}

/**
 * Comments are as visible as their post: a correlated EXISTS on the post's primary key (one index
 * lookup per comment row) rather than `post_id IN (every visible post id)`, which makes the database
 * collect every published post on each request. Same rows: `comments.post_id` is never null.
 */
export function scopeComments(query: ResourceQuery, ctx: HookContext): ResourceQuery {
  return query.where((eb) =>
    eb.exists(
      scopePosts(
        ctx.db.selectFrom('posts').select(sql.lit(1).as('one')).whereRef('posts.id', '=', 'comments.post_id'),
        ctx,
      ),
    ),
  );
}
