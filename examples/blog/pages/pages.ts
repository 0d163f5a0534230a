import {
  csrfField,
  field,
  form,
  html,
  layout,
  raw,
  type PageContext,
  type SafeHtml,
} from '../../../src/html.ts';
import type { ApiRecord, Pagination } from './engine.ts';

/**
 * The blog's pages: pure functions of their context and the records the engine returned. Every
 * record value is user text and goes through the escaping `html` template.
 */

/** The blog's own styles, after the built-in ones (a constant of the code, never user input). */
const STYLE = raw(`<style>
.post-list{list-style:none;padding:0;margin:0}
.post-list>li{padding:.9rem 0;border-bottom:1px solid var(--line)}
.post-list h2{margin:0 0 .2rem;font-size:1.2rem;line-height:1.3}
.post-list h2 a{text-decoration:none}.post-list h2 a:hover{text-decoration:underline}
.meta{color:var(--muted);font-size:.92rem;margin:.15rem 0}
.search{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;margin:0 0 1rem}
.search label{margin:0;flex-basis:100%}
.search input{flex:1 1 12rem;min-width:0;max-width:none}
.search button{margin:0;align-self:stretch}
input[type=search]{padding:.55rem .6rem;font:inherit;border:1px solid #8d96a6;border-radius:6px;background:#fff}
textarea{display:block;width:100%;min-height:12rem;padding:.55rem .6rem;font:inherit;line-height:1.5;border:1px solid #8d96a6;border-radius:6px;background:#fff;resize:vertical}
textarea.short{min-height:6rem}
textarea:focus-visible,input[type=search]:focus-visible{outline:3px solid #7aa2ff;outline-offset:2px}
textarea[aria-invalid=true]{border-color:var(--danger)}
.post-body{white-space:pre-line;overflow-wrap:anywhere}
.comments{list-style:none;padding:0;margin:0}
.comments>li{border-top:1px solid var(--line);padding:.75rem 0}
.comments p{white-space:pre-line;overflow-wrap:anywhere}
.row-actions{display:flex;flex-wrap:wrap;gap:.5rem .75rem;align-items:center;margin:.5rem 0 0}
.row-actions form,.row-actions button,.row-actions .button{margin:0}
.row-actions button,.row-actions .button{padding:.35rem .8rem}
.pager{flex-wrap:wrap}
</style>`);

function blogLayout(ctx: PageContext, title: string, content: SafeHtml): SafeHtml {
  return layout(ctx, title, content, STYLE);
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** "2026-11-24 09:30 UTC", machine-readable in `datetime`. */
function date(value: unknown): SafeHtml | string {
  const iso = text(value);
  return iso ? html`<time datetime="${iso}">${iso.replace('T', ' ').slice(0, 16)} UTC</time>` : '';
}

function author(post: ApiRecord): string {
  const who = post.author as { username?: string } | null | undefined;
  return who?.username ?? 'someone';
}

function statusBadge(post: ApiRecord): SafeHtml | '' {
  return post.status === 'published' ? '' : html`<span class="badge muted">Draft</span>`;
}

/** A textarea with the same label, hint and error wiring as the built-in `field`. */
function textArea(
  ctx: PageContext,
  options: { name: string; label: string; value: string; hint?: string; short?: boolean },
): SafeHtml {
  const id = `field-${options.name}`;
  const error = ctx.errors[options.name];
  const described = [options.hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return html`<label for="${id}">${options.label}</label>
    ${options.hint ? html`<div class="hint" id="${id}-hint">${options.hint}</div>` : ''}
    <textarea
      id="${id}"
      name="${options.name}"
      required
      ${options.short ? html`class="short"` : ''}
      ${error ? html`aria-invalid="true"` : ''}
      ${described ? html`aria-describedby="${described}"` : ''}
    >
${options.value}</textarea>
    ${error ? html`<div class="field-error" id="${id}-error">${error}</div>` : ''}`;
}

/** What the front page shows: one page of published posts, or why the engine refused the query. */
export interface FrontPageData {
  posts: ApiRecord[];
  pagination?: Pagination;
  search: string;
  /** The cursor this page was read from (none: the newest posts). */
  cursor: string;
  /** The engine's reason when the query was refused (a stale cursor, a too-long search). */
  problem?: string;
}

/** `/`: the published posts, newest first, with a search box and "older posts" by cursor. */
export function frontPage(ctx: PageContext, data: FrontPageData): SafeHtml {
  const searching = data.search !== '';
  const older = data.pagination?.nextCursor
    ? `/?${new URLSearchParams({ ...(searching ? { search: data.search } : {}), cursor: data.pagination.nextCursor })}`
    : null;
  const newest = searching ? `/?${new URLSearchParams({ search: data.search })}` : '/';
  const writing = ctx.user
    ? html`<div class="actions">
        <a class="button" href="/my/posts/new">Write a post</a><a href="/my/posts">My posts</a>
      </div>`
    : html`<p class="hint">
        <a href="/login">Sign in</a> or <a href="/register">create an account</a> to write posts and comment.
      </p>`;
  // The newest page follows the live route (assets/live.js): new posts appear without a reload.
  const live = !searching && !data.cursor;
  const emptyText = searching ? 'No published post matches this search.' : 'Nothing is published yet.';
  const list =
    data.posts.length === 0 && !live
      ? html`<p>${emptyText}</p>`
      : html`${live ? html`<p data-live-empty ${data.posts.length > 0 ? 'hidden' : ''}>${emptyText}</p>` : ''}
          <ul class="post-list" ${live ? html`data-live="/api/v1/posts" data-limit="10"` : ''}>
            ${data.posts.map((post) => {
              const excerpt = text(post.excerpt);
              const cut = text(post.body).length > excerpt.length;
              return html`<li data-id="${post.id}">
                <h2><a href="/posts/${post.id}">${text(post.title)}</a></h2>
                <p class="meta">by ${author(post)} · ${date(post.created_at)}</p>
                <p>${cut ? `${excerpt.trimEnd()}…` : excerpt}</p>
              </li>`;
            })}
          </ul>`;
  const content = html`${writing}
    <form class="search" method="get" action="/" role="search">
      <label for="field-search">Search posts</label>
      <input id="field-search" type="search" name="search" value="${data.search}" maxlength="200" />
      <button type="submit">Search</button>
      ${searching ? html`<a href="/">Clear</a>` : ''}
    </form>
    ${
      data.problem
        ? html`<div class="flash error" role="alert">
            ${data.problem} <a href="${newest}">Back to the newest posts</a>.
          </div>`
        : list
    }
    ${
      older || data.cursor
        ? html`<nav class="pager" aria-label="Pages">
            ${data.cursor ? html`<a href="${newest}">Newest posts</a>` : ''}
            ${older ? html`<a href="${older}" rel="next">Older posts</a>` : ''}
          </nav>`
        : ''
    }`;
  const title = searching ? `Posts matching “${data.search}”` : 'Latest posts';
  if (!live) return blogLayout(ctx, title, content);
  return layout(
    ctx,
    title,
    html`${content}
      <p class="hint" role="status" data-live-status></p>`,
    html`${STYLE}
      <script src="/assets/blog-live.js" defer></script>`,
  );
}

/** `/posts/{id}`: the post, its comments, and the comment form for a signed-in reader. */
export function postPage(ctx: PageContext, post: ApiRecord): SafeHtml {
  const comments = (post.comments as ApiRecord[] | undefined) ?? [];
  const mine = ctx.user !== null && ctx.user.username === author(post);
  const commentForm = ctx.user
    ? form(
        ctx,
        `/posts/${post.id}/comments`,
        html`${textArea(ctx, {
          name: 'body',
          label: 'Your comment',
          value: ctx.input.body ?? '',
          hint: `Shown as ${ctx.user.username}. At most 5,000 characters.`,
          short: true,
        })}`,
        'Add comment',
      )
    : html`<p><a href="/login">Sign in</a> to comment.</p>`;
  const content = html`<p class="meta">by ${author(post)} · ${date(post.created_at)} ${statusBadge(post)}</p>
    ${
      mine
        ? html`<div class="row-actions">
            <a class="button secondary" href="/my/posts/${post.id}/edit">Edit</a>
          </div>`
        : ''
    }
    <div class="post-body">${text(post.body)}</div>
    <h2 id="comments">Comments (${comments.length})</h2>
    ${
      comments.length === 0
        ? html`<p class="hint">No comments yet.</p>`
        : html`<ul class="comments">
            ${comments.map(
              (comment) =>
                html`<li>
                  <p class="meta">
                    <strong>${text(comment.author_name)}</strong> · ${date(comment.created_at)}
                  </p>
                  <p>${text(comment.body)}</p>
                </li>`,
            )}
          </ul>`
    }
    ${commentForm}
    <p><a href="/">All posts</a></p>`;
  return blogLayout(ctx, text(post.title), content);
}

/** A form shown again for a post that is no longer there (deleted meanwhile). */
export function missingPostPage(ctx: PageContext): SafeHtml {
  return blogLayout(
    ctx,
    'Post not found',
    html`<p>This post is no longer there.</p>
      <p><a href="/">All posts</a></p>`,
  );
}

/** `/my/posts`: the signed-in author's posts, drafts included, with edit, publish and delete. */
export function myPostsPage(
  ctx: PageContext,
  data: { posts: ApiRecord[]; pagination?: Pagination; cursor: string },
): SafeHtml {
  const older = data.pagination?.nextCursor
    ? `/my/posts?${new URLSearchParams({ cursor: data.pagination.nextCursor })}`
    : null;
  const rows = data.posts.map((post) => {
    const draft = post.status !== 'published';
    return html`<li>
      <h2><a href="/posts/${post.id}">${text(post.title)}</a> ${statusBadge(post)}</h2>
      <p class="meta">Last changed ${date(post.updated_at)}</p>
      <div class="row-actions">
        <a class="button secondary" href="/my/posts/${post.id}/edit">Edit</a>
        ${
          draft
            ? html`<form method="post" action="/my/posts/${post.id}/publish">
                ${csrfField(ctx)}<button type="submit">Publish</button>
              </form>`
            : ''
        }
        <form method="post" action="/my/posts/${post.id}/delete">
          ${csrfField(ctx)}<button class="danger" type="submit">
            Delete<span class="visually-hidden"> “${text(post.title)}”</span>
          </button>
        </form>
      </div>
    </li>`;
  });
  const content = html`<div class="actions"><a class="button" href="/my/posts/new">Write a post</a></div>
    ${
      data.posts.length === 0
        ? html`<p>${data.cursor ? 'No older posts.' : 'You have not written a post yet.'}</p>`
        : html`<ul class="post-list">
            ${rows}
          </ul>`
    }
    ${
      older || data.cursor
        ? html`<nav class="pager" aria-label="Pages">
            ${data.cursor ? html`<a href="/my/posts">Most recent</a>` : ''}
            ${older ? html`<a href="${older}" rel="next">Older posts</a>` : ''}
          </nav>`
        : ''
    }`;
  return blogLayout(ctx, 'My posts', content);
}

/** `/my/posts/new` and `/my/posts/{id}/edit`: title, text and whether it is published. */
export function postFormPage(ctx: PageContext, post: ApiRecord | null): SafeHtml {
  const value = (name: 'title' | 'body' | 'status') => ctx.input[name] ?? text(post?.[name]);
  const status = value('status') || 'draft';
  const statusError = ctx.errors.status;
  const content = form(
    ctx,
    post ? `/my/posts/${post.id}` : '/my/posts',
    html`${field(ctx, {
        name: 'title',
        label: 'Title',
        value: value('title'),
        required: true,
        hint: 'Between 3 and 200 characters.',
      })}
      ${textArea(ctx, { name: 'body', label: 'Text', value: value('body'), hint: 'Blank lines separate paragraphs.' })}
      <label for="field-status">Visibility</label>
      <select
        id="field-status"
        name="status"
        ${statusError ? html`aria-invalid="true" aria-describedby="field-status-error"` : ''}
      >
        <option value="draft" ${status === 'draft' ? 'selected' : ''}>Draft: only you see it</option>
        <option value="published" ${status === 'published' ? 'selected' : ''}>
          Published: on the front page
        </option>
      </select>
      ${statusError ? html`<div class="field-error" id="field-status-error">${statusError}</div>` : ''}`,
    post ? 'Save changes' : 'Save post',
  );
  return blogLayout(
    ctx,
    post ? 'Edit post' : 'Write a post',
    html`${content}
      <p><a href="/my/posts">Back to my posts</a></p>`,
  );
}
