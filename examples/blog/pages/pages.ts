import {
  csrfField,
  escapeHtml,
  field,
  form,
  html,
  layout,
  raw,
  type PageContext,
  type SafeHtml,
  type Text,
} from '../../../src/plugin-api.ts';
import type { ApiRecord, Pagination } from './engine.ts';
import { blogMessages } from './messages/index.ts';

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

/** The pages' texts in the reader's language. */
const textsOf = (ctx: PageContext) => blogMessages.in(ctx.language);

/** The formatter's options for a post's date: the same in every language, in UTC. */
const DATE_OPTIONS: Intl.DateTimeFormatOptions = { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' };

/** "Nov 24, 2026, 9:30 AM UTC" in the reader's language, machine-readable in `datetime`. */
function date(ctx: PageContext, value: unknown): SafeHtml | string {
  const iso = text(value);
  if (!iso || Number.isNaN(Date.parse(iso))) return '';
  return html`<time datetime="${iso}">${ctx.language.format.date(iso, DATE_OPTIONS)} UTC</time>`;
}

/** The author's username (none: null, a deleted account). */
function authorName(post: ApiRecord): string | null {
  const who = post.author as { username?: string } | null | undefined;
  return who?.username ?? null;
}

/** "by grace · <date>": the post's byline. */
function byline(ctx: PageContext, post: ApiRecord): SafeHtml {
  const t = textsOf(ctx);
  return html`${t('post.by', { author: authorName(post) ?? t('post.someone') })} ·
  ${date(ctx, post.created_at)}`;
}

function statusBadge(ctx: PageContext, post: ApiRecord): SafeHtml | '' {
  return post.status === 'published'
    ? ''
    : html`<span class="badge muted">${textsOf(ctx)('post.draft')}</span>`;
}

/**
 * A sentence holding links: `sentence` is written with a marker per link (the catalog keeps the
 * whole sentence, so each language orders it its own way), escaped, then each marker becomes its link.
 */
function withLinks(
  sentence: (markers: Record<string, string>) => string,
  links: Record<string, SafeHtml>,
): SafeHtml {
  const names = Object.keys(links);
  const markers = Object.fromEntries(names.map((name, i) => [name, `\uE000${i}\uE001`]));
  const escaped = escapeHtml(sentence(markers));
  return raw(escaped.replace(/\uE000(\d+)\uE001/g, (_, i: string) => String(links[names[Number(i)]!])));
}

/** A text of the engine (a catalog text or the API's own words) in the reader's language. */
function writtenIn(ctx: PageContext, value: Text): string {
  return typeof value === 'string' ? value : value.in(ctx.language);
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
  problem?: Text;
}

/** `/`: the published posts, newest first, with a search box and "older posts" by cursor. */
export function frontPage(ctx: PageContext, data: FrontPageData): SafeHtml {
  const t = textsOf(ctx);
  const searching = data.search !== '';
  const older = data.pagination?.nextCursor
    ? `/?${new URLSearchParams({ ...(searching ? { search: data.search } : {}), cursor: data.pagination.nextCursor })}`
    : null;
  const newest = searching ? `/?${new URLSearchParams({ search: data.search })}` : '/';
  const writing = ctx.user
    ? html`<div class="actions">
        <a class="button" href="/my/posts/new">${t('front.write')}</a
        ><a href="/my/posts">${t('front.myPosts')}</a>
      </div>`
    : html`<p class="hint">
        ${withLinks((marks) => t('front.invite', { signIn: marks.signIn!, register: marks.register! }), {
          signIn: html`<a href="/login">${t('front.signIn')}</a>`,
          register: html`<a href="/register">${t('front.register')}</a>`,
        })}
      </p>`;
  // The newest page follows the live route (assets/live.js): new posts appear without a reload.
  const live = !searching && !data.cursor;
  const problem = data.problem;
  const emptyText = searching ? t('front.noMatch') : t('front.nothing');
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
                <p class="meta">${byline(ctx, post)}</p>
                <p>${cut ? `${excerpt.trimEnd()}…` : excerpt}</p>
              </li>`;
            })}
          </ul>`;
  const content = html`${writing}
    <form class="search" method="get" action="/" role="search">
      <label for="field-search">${t('front.searchLabel')}</label>
      <input id="field-search" type="search" name="search" value="${data.search}" maxlength="200" />
      <button type="submit">${t('front.search')}</button>
      ${searching ? html`<a href="/">${t('front.clear')}</a>` : ''}
    </form>
    ${
      problem !== undefined
        ? html`<div class="flash error" role="alert">
            ${writtenIn(ctx, problem)} <a href="${newest}">${t('front.backToNewest')}</a>
          </div>`
        : list
    }
    ${
      older || data.cursor
        ? html`<nav class="pager" aria-label="${t('list.pages')}">
            ${data.cursor ? html`<a href="${newest}">${t('list.newest')}</a>` : ''}
            ${older ? html`<a href="${older}" rel="next">${t('list.older')}</a>` : ''}
          </nav>`
        : ''
    }`;
  const title = searching ? t('front.searchTitle', { search: data.search }) : t('front.title');
  if (!live) return blogLayout(ctx, title, content);
  return layout(
    ctx,
    title,
    html`${content}
      <p
        class="hint"
        role="status"
        data-live-status
        data-by="${t('post.by', { author: '{author}' })}"
        data-someone="${t('post.someone')}"
        data-new-post="${t('live.newPost', { title: '{title}' })}"
        data-removed="${t('live.removed')}"
      ></p>`,
    html`${STYLE}
      <script src="/assets/blog-live.js" defer></script>`,
  );
}

/** `/posts/{id}`: the post, its comments, and the comment form for a signed-in reader. */
export function postPage(ctx: PageContext, post: ApiRecord): SafeHtml {
  const t = textsOf(ctx);
  const comments = (post.comments as ApiRecord[] | undefined) ?? [];
  const mine = ctx.user !== null && ctx.user.username === authorName(post);
  const commentForm = ctx.user
    ? form(
        ctx,
        `/posts/${post.id}/comments`,
        html`${textArea(ctx, {
          name: 'body',
          label: t('comment.label'),
          value: ctx.input.body ?? '',
          hint: t('comment.hint', { username: ctx.user.username }),
          short: true,
        })}`,
        t('comment.submit'),
      )
    : html`<p>
        ${withLinks((marks) => t('comment.signInFirst', { signIn: marks.signIn! }), {
          signIn: html`<a href="/login">${t('comment.signIn')}</a>`,
        })}
      </p>`;
  const content = html`<p class="meta">${byline(ctx, post)} ${statusBadge(ctx, post)}</p>
    ${
      mine
        ? html`<div class="row-actions">
            <a class="button secondary" href="/my/posts/${post.id}/edit">${t('post.edit')}</a>
          </div>`
        : ''
    }
    <div class="post-body">${text(post.body)}</div>
    <h2 id="comments">${t('post.comments', { count: comments.length })}</h2>
    ${
      comments.length === 0
        ? html`<p class="hint">${t('post.noComments')}</p>`
        : html`<ul class="comments">
            ${comments.map(
              (comment) =>
                html`<li>
                  <p class="meta">
                    <strong>${text(comment.author_name)}</strong> · ${date(ctx, comment.created_at)}
                  </p>
                  <p>${text(comment.body)}</p>
                </li>`,
            )}
          </ul>`
    }
    ${commentForm}
    <p><a href="/">${t('post.allPosts')}</a></p>`;
  return blogLayout(ctx, text(post.title), content);
}

/** A form shown again for a post that is no longer there (deleted meanwhile). */
export function missingPostPage(ctx: PageContext): SafeHtml {
  const t = textsOf(ctx);
  return blogLayout(
    ctx,
    t('post.notFound'),
    html`<p>${t('post.gone')}</p>
      <p><a href="/">${t('post.allPosts')}</a></p>`,
  );
}

/** `/my/posts`: the signed-in author's posts, drafts included, with edit, publish and delete. */
export function myPostsPage(
  ctx: PageContext,
  data: { posts: ApiRecord[]; pagination?: Pagination; cursor: string },
): SafeHtml {
  const t = textsOf(ctx);
  const older = data.pagination?.nextCursor
    ? `/my/posts?${new URLSearchParams({ cursor: data.pagination.nextCursor })}`
    : null;
  const rows = data.posts.map((post) => {
    const draft = post.status !== 'published';
    return html`<li>
      <h2><a href="/posts/${post.id}">${text(post.title)}</a> ${statusBadge(ctx, post)}</h2>
      <p class="meta">${t('mine.lastChanged')} ${date(ctx, post.updated_at)}</p>
      <div class="row-actions">
        <a class="button secondary" href="/my/posts/${post.id}/edit">${t('post.edit')}</a>
        ${
          draft
            ? html`<form method="post" action="/my/posts/${post.id}/publish">
                ${csrfField(ctx)}<button type="submit">${t('mine.publish')}</button>
              </form>`
            : ''
        }
        <form method="post" action="/my/posts/${post.id}/delete">
          ${csrfField(ctx)}<button class="danger" type="submit">
            ${t('mine.delete')}<span class="visually-hidden"> “${text(post.title)}”</span>
          </button>
        </form>
      </div>
    </li>`;
  });
  const content = html`<div class="actions">
      <a class="button" href="/my/posts/new">${t('front.write')}</a>
    </div>
    ${
      data.posts.length === 0
        ? html`<p>${data.cursor ? t('mine.noOlder') : t('mine.none')}</p>`
        : html`<ul class="post-list">
            ${rows}
          </ul>`
    }
    ${
      older || data.cursor
        ? html`<nav class="pager" aria-label="${t('list.pages')}">
            ${data.cursor ? html`<a href="/my/posts">${t('list.mostRecent')}</a>` : ''}
            ${older ? html`<a href="${older}" rel="next">${t('list.older')}</a>` : ''}
          </nav>`
        : ''
    }`;
  return blogLayout(ctx, t('mine.title'), content);
}

/** `/my/posts/new` and `/my/posts/{id}/edit`: title, text and whether it is published. */
export function postFormPage(ctx: PageContext, post: ApiRecord | null): SafeHtml {
  const t = textsOf(ctx);
  const value = (name: 'title' | 'body' | 'status') => ctx.input[name] ?? text(post?.[name]);
  const status = value('status') || 'draft';
  const statusError = ctx.errors.status;
  const content = form(
    ctx,
    post ? `/my/posts/${post.id}` : '/my/posts',
    html`${field(ctx, {
        name: 'title',
        label: t('form.title'),
        value: value('title'),
        required: true,
        hint: t('form.titleHint'),
      })}
      ${textArea(ctx, { name: 'body', label: t('form.text'), value: value('body'), hint: t('form.textHint') })}
      <label for="field-status">${t('form.visibility')}</label>
      <select
        id="field-status"
        name="status"
        ${statusError ? html`aria-invalid="true" aria-describedby="field-status-error"` : ''}
      >
        <option value="draft" ${status === 'draft' ? 'selected' : ''}>${t('form.draft')}</option>
        <option value="published" ${status === 'published' ? 'selected' : ''}>${t('form.published')}</option>
      </select>
      ${statusError ? html`<div class="field-error" id="field-status-error">${statusError}</div>` : ''}`,
    post ? t('form.saveChanges') : t('form.save'),
  );
  return blogLayout(
    ctx,
    post ? t('form.editTitle') : t('form.newTitle'),
    html`${content}
      <p><a href="/my/posts">${t('form.backToMine')}</a></p>`,
  );
}
