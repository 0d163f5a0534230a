import { Type } from '@sinclair/typebox';
import { AuthenticationRequiredError, defineResource } from '../../../src/index.ts';
import { postAlternatives, scopePosts } from './visibility.ts';

const title = Type.String({ minLength: 3, maxLength: 200, description: 'Between 3 and 200 characters.' });
const body = Type.String({ minLength: 1, maxLength: 100_000 });
const status = Type.Union([Type.Literal('draft'), Type.Literal('published')], {
  description: 'Default draft.',
});

const pinned = Type.Boolean({ description: 'Default false.' });
const tags = Type.Array(Type.String({ minLength: 1, maxLength: 40 }), {
  maxItems: 20,
  description: 'At most 20 tags. Default [].',
});

const EXCERPT_LENGTH = 100;

/** Blog posts: anyone reads the published ones; authors write their own. */
export const posts = defineResource({
  name: 'posts',
  version: ['v1', 'v2'],
  description:
    'Blog posts. Anonymous readers see published posts; signed-in callers also see their own drafts.',
  columns: {
    id: { type: 'integer', readOnly: true },
    title: { type: 'string' },
    body: { type: 'text' },
    status: { type: 'string', description: 'draft or published' },
    pinned: { type: 'boolean', description: 'Shown first by clients that sort by `-pinned`.' },
    tags: { type: 'json', nullable: true, description: 'A list of tags (strings).' },
    // The raw user id stays inside: the author is shown through `derive=author` with an obfuscated id.
    author_id: { type: 'integer', readOnly: true, hidden: true },
    created_at: { type: 'datetime', readOnly: true, timestamp: 'created' },
    updated_at: { type: 'datetime', readOnly: true, timestamp: 'updated' },
  },
  computedFields: {
    excerpt: {
      type: 'string',
      description: `The first ${EXCERPT_LENGTH} characters of the body.`,
      from: ['body'],
    },
  },
  relations: {
    comments: { type: 'hasMany', resource: 'comments', foreignKey: 'post_id' },
    author: {
      type: 'belongsTo',
      table: 'users',
      foreignKey: 'author_id',
      columns: ['id', 'username'],
      columnTypes: { username: 'string' },
      obfuscatedFields: ['id'],
    },
  },
  allowedRelations: ['comments', 'author'],
  obfuscatedFields: ['id'],
  maxLimit: 50,
  // GET /api/{v}/posts/live: the list's changes as Server-Sent Events (the front page's live updates).
  live: true,
  requiredAuth: ['post', 'put', 'patch', 'delete'],
  searchable: ['title', 'body'],
  filterable: ['status', 'pinned'],
  sortable: ['id', 'title', 'status', 'pinned', 'created_at', 'updated_at'],
  formClass: {
    post: Type.Object({
      title,
      body,
      status: Type.Optional(status),
      pinned: Type.Optional(pinned),
      tags: Type.Optional(tags),
    }),
    put: Type.Object({ title, body, status, pinned: Type.Optional(pinned), tags: Type.Optional(tags) }),
    patch: Type.Object({
      title: Type.Optional(title),
      body: Type.Optional(body),
      status: Type.Optional(status),
      pinned: Type.Optional(pinned),
      tags: Type.Optional(tags),
    }),
  },
  // The visibility rule reads only the verb and the caller: an anonymous read by id is compiled once.
  beforeQueryReads: 'caller',
  hooks: {
    beforeQuery: (query, ctx) => scopePosts(query, ctx),
    // The same rule for signed-in list reads, in a form that keeps the page and count on indexes.
    rowAlternatives: (ctx) => postAlternatives(ctx),
    beforeSave(data, ctx) {
      if (ctx.verb !== 'post') return data;
      // The author is the caller, never a payload field.
      if (!ctx.user) throw new AuthenticationRequiredError();
      return { tags: [], ...data, author_id: ctx.user.id };
    },
    // In place: the engine hands the hook rows of its own, so no copy is needed.
    afterQuery(records) {
      for (const record of records) record.excerpt = String(record.body ?? '').slice(0, EXCERPT_LENGTH);
    },
  },
});
