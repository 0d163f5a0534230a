import { Type } from '@sinclair/typebox';
import {
  defineEndpoint,
  definePlugin,
  Envelope,
  HttpError,
  NotFoundError,
  ValidationError,
  type EndpointInput,
  type EndpointRateLimit,
  type PageContext,
  type SafeHtml,
} from '../../../src/plugin-api.ts';
// The built-in pages belong to the built-in plugins, not to the plugin API: the error page this
// plugin falls back to comes with them.
import { builtInPages, type NoPageProps } from '../../../src/index.ts';
import { engineOf, type ApiRecord, type Engine, type EngineAnswer } from './engine.ts';
import { blogAssets } from './assets.ts';
import {
  frontPage,
  missingPostPage,
  myPostsPage,
  postFormPage,
  postPage,
  type FrontPageData,
} from './pages.ts';
import { blogMessages } from './messages/index.ts';

/**
 * The demo blog's pages (server-rendered): the front page at `/` (published posts, search, older
 * posts by cursor), a post with its comments and a comment form, and "My posts" where a signed-in
 * author writes, edits, publishes and deletes. Every read and write goes through the resource API
 * (`engine.ts`), as the visitor: the API's rules (visibility, authorship, validation) are the
 * pages' rules.
 */

const SESSION_COOKIE = 'citadel_session';
const PAGE_SIZE = 10;

const ID = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
const CURSOR = Type.Optional(Type.String({ maxLength: 2000 }));
const TITLE = Type.String({ minLength: 3, maxLength: 200 });
const BODY = Type.String({ minLength: 1, maxLength: 100_000 });
const STATUS = Type.Union([Type.Literal('draft'), Type.Literal('published')]);
const POST_FORM = Type.Object({ title: TITLE, body: BODY, status: STATUS });
const COMMENT_FORM = Type.Object({ body: Type.String({ minLength: 1, maxLength: 5000 }) });

/** Writes from the pages: per signed-in user, generous for a person, a wall for a script. */
const WRITES: EndpointRateLimit = { name: 'blog:write:user', max: 60, windowSeconds: 600, per: 'user' };

/** The visitor's session cookie, forwarded so that the engine sees the same caller. */
function sessionOf(input: EndpointInput): string | null {
  return input.cookies[SESSION_COOKIE] ?? null;
}

/** A failed write's answer as the page's errors: the API's field reasons, else its message. */
function refused(answer: Extract<EngineAnswer<unknown>, { ok: false }>): never {
  if (answer.status === 404) throw new NotFoundError(blogMessages.text('error.noOwnPost'));
  if (answer.status === 422 && Object.keys(answer.invalid).length > 0)
    throw new ValidationError(answer.invalid);
  throw new HttpError(answer.status, answer.detail);
}

/**
 * A form page's props when it is shown again (a refused comment or edit). The same props are loaded
 * for the error page of that route, so a post that cannot be read gives none rather than an error.
 */
async function propsOf(post: Promise<ApiRecord>): Promise<{ post?: ApiRecord }> {
  return post.then(
    (loaded) => ({ post: loaded }),
    () => ({}),
  );
}

/** A re-shown form page: its post, or (gone meanwhile) a page that says so. */
function withPost(ctx: PageContext, render: (post: ApiRecord) => SafeHtml): SafeHtml {
  const post = (ctx.props as { post?: ApiRecord }).post;
  return post ? render(post) : missingPostPage(ctx);
}

/**
 * A page drawn from its handler's answer (`ctx.outcome.data`). A request refused before the
 * handler ran (an invalid query: 422) has none: the built-in error page says why.
 */
function withData<T>(ctx: PageContext, key: string, render: (data: T) => SafeHtml): SafeHtml {
  const data = ctx.outcome?.data;
  return data && key in data ? render(data as T) : builtInPages.error(ctx as PageContext<NoPageProps>);
}

/** The blog's pages as a plugin: `plugins: [...defaultPlugins(), blogPages()]`. */
export function blogPages() {
  let engine: Engine | undefined;
  const api = (): Engine => {
    if (!engine) throw new Error('the blog pages are used before the server started');
    return engine;
  };

  async function loadPost(input: EndpointInput<{ id: string }>): Promise<ApiRecord> {
    const answer = await api().call('GET', `/posts/${encodeURIComponent(input.params.id)}`, {
      session: sessionOf(input),
      language: input.language.locale,
      query: { derive: 'comments,author' },
    });
    if (!answer.ok) throw new NotFoundError(blogMessages.text('error.noPost'));
    return answer.data;
  }

  /** An own post for its edit form (the posts the API lets this caller change). */
  async function loadOwnPost(input: EndpointInput<{ id: string }>): Promise<ApiRecord> {
    const post = await loadPost(input);
    if ((post.author as { username?: string } | null)?.username !== input.caller?.user.username)
      throw new NotFoundError(blogMessages.text('error.noOwnPost'));
    return post;
  }

  const front = async (query: Record<string, unknown>, language: string): Promise<FrontPageData> => {
    const search = typeof query.search === 'string' ? query.search.trim() : '';
    const cursor = typeof query.cursor === 'string' ? query.cursor : '';
    // The front page lists what everyone sees: published posts, whoever is reading.
    const answer = await api().call('GET', '/posts', {
      query: {
        status: 'published',
        sort: '-created_at',
        derive: 'author',
        limit: String(PAGE_SIZE),
        count: 'none',
        search: search || undefined,
        cursor: cursor || undefined,
      },
      language,
    });
    if (!answer.ok) return { posts: [], search, cursor, problem: answer.detail };
    return { posts: answer.data as unknown as ApiRecord[], pagination: answer.pagination, search, cursor };
  };

  const post = defineEndpoint({
    method: 'GET',
    path: '/posts/:id',
    action: 'blog.post',
    auth: 'optional',
    summary: 'A blog post with its comments; page: the post and the comment form',
    params: ID,
    failures: [404],
    responses: { 200: Envelope({ data: Type.Object({ post: Type.Unknown() }) }) },
    page: (ctx) => withData(ctx, 'post', (data: { post: ApiRecord }) => postPage(ctx, data.post)),
    async handler(input) {
      return { status: 'info', data: { post: await loadPost(input) }, render: true };
    },
  });

  const comment = defineEndpoint({
    method: 'POST',
    path: '/posts/:id/comments',
    action: 'blog.comment',
    auth: 'session',
    bearer: false,
    summary: 'Comment on a post as the signed-in user',
    params: ID,
    body: COMMENT_FORM,
    rateLimit: WRITES,
    failures: [404],
    responses: { 200: Envelope() },
    page: (ctx) => withPost(ctx, (post) => postPage(ctx, post)),
    pageProps: (input) => propsOf(loadPost(input as EndpointInput<{ id: string }>)),
    async handler(input) {
      const answer = await api().call('POST', '/comments', {
        session: sessionOf(input),
        language: input.language.locale,
        body: { post_id: input.params.id, author_name: input.caller!.user.username, body: input.body.body },
      });
      if (!answer.ok) refused(answer);
      return {
        status: 'success',
        message: blogMessages.text('answer.commentAdded'),
        redirect_to: `/posts/${encodeURIComponent(input.params.id)}#comments`,
      };
    },
  });

  const mine = defineEndpoint({
    method: 'GET',
    path: '/my/posts',
    action: 'blog.my_posts',
    auth: 'session',
    bearer: false,
    summary: "The signed-in author's posts, drafts included; page: My posts",
    query: Type.Object({ cursor: CURSOR }),
    responses: {
      200: Envelope({
        data: Type.Object({
          posts: Type.Array(Type.Unknown()),
          next_cursor: Type.Union([Type.String(), Type.Null()]),
        }),
      }),
    },
    page: (ctx) =>
      withData(ctx, 'posts', (data: { posts: ApiRecord[]; next_cursor: string | null }) =>
        myPostsPage(ctx, {
          posts: data.posts,
          pagination: { hasMore: data.next_cursor !== null, nextCursor: data.next_cursor },
          cursor: typeof ctx.query.cursor === 'string' ? ctx.query.cursor : '',
        }),
      ),
    async handler(input) {
      const answer = await api().call<ApiRecord[]>('GET', '/my_posts', {
        session: sessionOf(input),
        language: input.language.locale,
        query: { limit: String(PAGE_SIZE), count: 'none', cursor: input.query.cursor || undefined },
      });
      if (!answer.ok) refused(answer);
      return {
        status: 'info',
        data: { posts: answer.data, next_cursor: answer.pagination?.nextCursor ?? null },
        render: true,
      };
    },
  });

  const newPost = defineEndpoint({
    method: 'GET',
    path: '/my/posts/new',
    action: 'blog.new_post',
    auth: 'session',
    bearer: false,
    summary: 'Page: the form for a new post',
    responses: { 200: Envelope() },
    page: (ctx) => postFormPage(ctx, null),
    async handler() {
      return { status: 'info', render: true };
    },
  });

  const create = defineEndpoint({
    method: 'POST',
    path: '/my/posts',
    action: 'blog.create_post',
    auth: 'session',
    bearer: false,
    summary: 'Write a post (a draft, or published at once)',
    body: POST_FORM,
    rateLimit: WRITES,
    responses: { 200: Envelope() },
    page: (ctx) => postFormPage(ctx, null),
    async handler(input) {
      const answer = await api().call('POST', '/posts', {
        session: sessionOf(input),
        language: input.language.locale,
        body: input.body,
      });
      if (!answer.ok) refused(answer);
      const published = input.body.status === 'published';
      return {
        status: 'success',
        message: blogMessages.text(published ? 'answer.published' : 'answer.draftSaved'),
        redirect_to: published ? `/posts/${answer.data.id}` : '/my/posts',
      };
    },
  });

  const edit = defineEndpoint({
    method: 'GET',
    path: '/my/posts/:id/edit',
    action: 'blog.edit_post',
    auth: 'session',
    bearer: false,
    summary: 'Page: the form that changes an own post',
    params: ID,
    failures: [404],
    responses: { 200: Envelope({ data: Type.Object({ post: Type.Unknown() }) }) },
    page: (ctx) => withData(ctx, 'post', (data: { post: ApiRecord }) => postFormPage(ctx, data.post)),
    async handler(input) {
      return { status: 'info', data: { post: await loadOwnPost(input) }, render: true };
    },
  });

  const update = defineEndpoint({
    method: 'POST',
    path: '/my/posts/:id',
    action: 'blog.update_post',
    auth: 'session',
    bearer: false,
    summary: 'Change an own post',
    params: ID,
    body: POST_FORM,
    rateLimit: WRITES,
    failures: [404],
    responses: { 200: Envelope() },
    page: (ctx) => withPost(ctx, (post) => postFormPage(ctx, post)),
    pageProps: (input) => propsOf(loadOwnPost(input as EndpointInput<{ id: string }>)),
    async handler(input) {
      const id = encodeURIComponent(input.params.id);
      const answer = await api().call('PATCH', `/posts/${id}`, {
        session: sessionOf(input),
        language: input.language.locale,
        body: input.body,
      });
      if (!answer.ok) refused(answer);
      return {
        status: 'success',
        message: blogMessages.text('answer.changesSaved'),
        redirect_to: `/posts/${id}`,
      };
    },
  });

  const publish = defineEndpoint({
    method: 'POST',
    path: '/my/posts/:id/publish',
    action: 'blog.publish_post',
    auth: 'session',
    bearer: false,
    summary: 'Publish an own draft',
    params: ID,
    rateLimit: WRITES,
    failures: [404],
    responses: { 200: Envelope() },
    async handler(input) {
      const id = encodeURIComponent(input.params.id);
      const answer = await api().call('PATCH', `/posts/${id}`, {
        session: sessionOf(input),
        language: input.language.locale,
        body: { status: 'published' },
      });
      if (!answer.ok) refused(answer);
      return {
        status: 'success',
        message: blogMessages.text('answer.published'),
        redirect_to: `/posts/${id}`,
      };
    },
  });

  const remove = defineEndpoint({
    method: 'POST',
    path: '/my/posts/:id/delete',
    action: 'blog.delete_post',
    auth: 'session',
    bearer: false,
    summary: 'Delete an own post and its comments',
    params: ID,
    rateLimit: WRITES,
    failures: [404],
    responses: { 200: Envelope() },
    async handler(input) {
      const answer = await api().call('DELETE', `/posts/${encodeURIComponent(input.params.id)}`, {
        session: sessionOf(input),
        language: input.language.locale,
      });
      if (!answer.ok) refused(answer);
      return { status: 'success', message: blogMessages.text('answer.deleted'), redirect_to: '/my/posts' };
    },
  });

  return definePlugin({
    id: 'blog',
    messages: blogMessages,
    endpoints: [post, comment, mine, newPost, create, edit, update, publish, remove],
    // The pages call the resource API in process, through the server's own pipeline.
    init({ services }) {
      engine = engineOf(services, SESSION_COOKIE);
    },
    // The home page (`/`) becomes the blog's front page.
    pages: { home: async (ctx) => frontPage(ctx, await front(ctx.query, ctx.language.locale)) },
    // The front page's live updates (assets/live.js).
    assets: blogAssets,
  });
}
