import { Type } from '@sinclair/typebox';
import { defineResource, ValidationError } from '../../../src/index.ts';
import { scopeComments, scopePosts } from './visibility.ts';
import { blogMessages } from '../pages/messages/index.ts';

/** Comments: anyone may comment on a post they can see; a post's author moderates its comments. */
export const comments = defineResource({
  name: 'comments',
  version: 'v1',
  description:
    'Comments on posts. Anyone may comment on a visible post; the post author may delete comments.',
  columns: {
    id: { type: 'integer', readOnly: true },
    post_id: { type: 'integer' },
    author_name: { type: 'string' },
    body: { type: 'text' },
    created_at: { type: 'datetime', readOnly: true, timestamp: 'created' },
  },
  relations: {
    post: { type: 'belongsTo', resource: 'posts', foreignKey: 'post_id' },
  },
  allowedRelations: ['post'],
  obfuscatedFields: ['id', 'post_id'],
  filterable: ['post_id'],
  // Each one indexed (examples/blog/migrations.ts): no sort by free text.
  sortable: ['id', 'post_id', 'created_at'],
  requiredAuth: ['put', 'patch', 'delete'],
  formClass: {
    // Nested under a post, `post_id` comes from the parent and is not accepted in the payload.
    post: Type.Object({
      post_id: Type.String({ description: 'The post id.' }),
      author_name: Type.String({ minLength: 1, maxLength: 100 }),
      body: Type.String({ minLength: 1, maxLength: 5000 }),
    }),
    // Moderation by the post's author, here or through PATCH /posts/{id} with `comments: [...]`.
    patch: Type.Object({
      author_name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
      body: Type.Optional(Type.String({ minLength: 1, maxLength: 5000 })),
    }),
  },
  // The visibility rule reads only the verb and the caller: an anonymous read by id is compiled once.
  beforeQueryReads: 'caller',
  hooks: {
    // Comments are as visible as their post; writes reach the comments on the caller's own posts.
    beforeQuery: (query, ctx) => scopeComments(query, ctx),
    async beforeSave(data, ctx) {
      // An update keeps its post (the engine refuses post_id in a patch); a create names one.
      if (ctx.verb !== 'post') return data;
      const visible = await scopePosts(ctx.db.selectFrom('posts').select('posts.id'), { ...ctx, verb: 'get' })
        .where('posts.id', '=', data.post_id as number)
        .executeTakeFirst();
      if (!visible) throw new ValidationError({ post_id: blogMessages.text('error.postNotVisible') });
      return data;
    },
  },
});
