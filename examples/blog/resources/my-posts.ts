import { defineResource } from '../../../src/index.ts';

/**
 * The signed-in caller's own posts, drafts included: a read-only view of the `posts` table for the
 * blog's "My posts" page (`/my/posts`). Its ids are the posts' ids (the same table, so the same
 * obfuscated id space): `/api/v1/posts/{id}` changes or deletes what this lists.
 */
export const myPosts = defineResource({
  name: 'my_posts',
  table: 'posts',
  version: 'v1',
  description: "The caller's own posts, drafts included (read only; write through /posts).",
  columns: {
    id: { type: 'integer', readOnly: true },
    title: { type: 'string' },
    status: { type: 'string', description: 'draft or published' },
    created_at: { type: 'datetime', readOnly: true, timestamp: 'created' },
    updated_at: { type: 'datetime', readOnly: true, timestamp: 'updated' },
  },
  obfuscatedFields: ['id'],
  exposedMethods: ['get'],
  requiredAuth: ['get'],
  maxLimit: 50,
  // No search: the front page searches the published posts.
  searchable: [],
  filterable: ['status'],
  // Each one indexed (examples/blog/migrations.ts).
  sortable: ['id', 'created_at', 'updated_at'],
  defaultSort: '-updated_at',
  hooks: {
    // Only the caller's rows, served by the posts_author_id index.
    beforeQuery: (query, ctx) => query.where('posts.author_id', '=', ctx.user!.id),
  },
});
