import { PRIVATE_NO_STORE } from './cache-control.ts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { publicUser, type Caller, type PublicUser } from '../security/caller.ts';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import type { SafeHtml } from '../../core/html.ts';
import type { Flash, Session } from '../sessions/session.ts';
import { clientKind } from '../request/negotiation.ts';
import { csrfToken } from '../security/csrf.ts';
import { mountLinks, publicPath } from '../request/base-path.ts';
import { written, writtenAll, type Language, type Text } from '../../core/i18n/catalog.ts';
import { requestLanguage } from '../i18n/request-language.ts';

export type EnvelopeStatus = 'success' | 'info' | 'error';

/** What an auth route produced, before it is shaped for the client kind. */
export interface Outcome {
  action: string;
  status: EnvelopeStatus;
  /** Default 200. */
  statusCode?: number;
  /** A catalog text is written in the request's language when the answer is shaped. */
  message?: Text;
  redirectTo?: string;
  user?: PublicUser;
  data?: Record<string, unknown>;
  errors?: Record<string, Text>;
  /** Extra top-level fields of the envelope (`tokens`, `token`, `token_id`, `name`). */
  fields?: Record<string, unknown>;
  /** Form clients: render the route's page with this outcome instead of redirecting (show-once data). */
  render?: boolean;
}

/** An outcome with its texts written in the reader's language: what pages and the envelope show. */
export type WrittenOutcome = Omit<Outcome, 'message' | 'errors'> & {
  message?: string;
  errors?: Record<string, string>;
};

/** `outcome` with its message and field texts in `language`. */
export function writeOutcome(outcome: Outcome, language: Language): WrittenOutcome {
  const shown: WrittenOutcome = { ...outcome, message: undefined, errors: undefined };
  if (outcome.message !== undefined) shown.message = written(outcome.message, language);
  else delete shown.message;
  if (outcome.errors !== undefined) shown.errors = writtenAll(outcome.errors, language);
  else delete shown.errors;
  return shown;
}

/**
 * What a page template gets: plain data, never the request, so a page is a pure function of it.
 * `props` holds what the route loaded for the page (its `pageProps` route option).
 */
export interface PageContext<P = unknown> {
  csrf: string;
  flash?: Flash;
  user: PublicUser | null;
  outcome?: WrittenOutcome;
  /**
   * The reader's language: `messages.in(ctx.language)` gives a catalog's texts in it;
   * `ctx.language.locale`, `.dir` and `.format` (dates, numbers, plurals) too.
   */
  language: Language;
  /** Every available language's tag, for the language switcher. */
  languages: readonly string[];
  /** The submitted fields, for re-filling a form after an error (never passwords). */
  input: Record<string, string>;
  errors: Record<string, string>;
  /** The parsed query string. */
  query: Record<string, unknown>;
  /** APP_NAME: the page title's suffix and the header's brand. */
  appName: string;
  /** The application's stylesheet URL, loaded after the built-in styles. */
  stylesheet?: string;
  /** Whether this server answers a link to `path` (a left-out plugin's pages are not linked). */
  serves: (path: string) => boolean;
  props: P;
  /** The administrator acting as the signed-in user: every page shows a banner to stop. */
  impersonator?: { id: number; username: string };
  /** What plugins add to the page header for this request (the organization switcher). */
  headerParts?: readonly SafeHtml[];
}

/** A plugin's part of the page header, for one page request (null: nothing to show). */
export type PageHeaderPart = (page: PageHeaderRequest) => Promise<SafeHtml | null>;

/** What a page header part is given: the page request as plain data. */
export interface PageHeaderRequest {
  caller: Caller | null;
  session: Session;
  /** The CSRF token of the page's forms. */
  csrf: string;
  db: Kysely<Database>;
  /** Whether this server answers a link to `path` (as `PageContext.serves`). */
  serves: (path: string) => boolean;
  /** The reader's language (as `PageContext.language`). */
  language: Language;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The plugins' page header parts, in plugin order (`citadel.pageHeaderParts`). */
    pageHeaderParts?: readonly PageHeaderPart[];
  }
}

/** A page: a pure function from its context (and the props its route loaded) to HTML. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a renderer of any props fits a route
export type PageRenderer<P = any> = (ctx: PageContext<P>) => SafeHtml | Promise<SafeHtml>;

/** Auth answers carry users, CSRF tokens and one-time secrets: no browser or proxy may keep them. */
// Every auth answer and page depends on the session: never kept by a shared cache, nor stored.
const NO_STORE = PRIVATE_NO_STORE;

const NEVER_REFILLED = /password|secret|token|code|proof|_csrf/i;

export function envelope(outcome: WrittenOutcome): Record<string, unknown> {
  const body: Record<string, unknown> = {
    action: outcome.action,
    status: outcome.status,
    statusCode: outcome.statusCode ?? 200,
  };
  if (outcome.message !== undefined) body.message = outcome.message;
  if (outcome.redirectTo !== undefined) body.redirect_to = outcome.redirectTo;
  if (outcome.user !== undefined) body.user = outcome.user;
  if (outcome.data !== undefined) body.data = outcome.data;
  if (outcome.errors !== undefined) body.errors = outcome.errors;
  if (outcome.fields) Object.assign(body, outcome.fields);
  return body;
}

/** The submitted scalar fields minus anything secret, for re-filling a form. */
export function refillableInput(request: FastifyRequest): Record<string, string> {
  const body = request.body;
  const input: Record<string, string> = {};
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    for (const [key, value] of Object.entries(body as Record<string, unknown>)) {
      if (!NEVER_REFILLED.test(key) && (typeof value === 'string' || typeof value === 'number'))
        input[key] = String(value);
    }
  }
  return input;
}

/**
 * Runs once the answer is shaped (flash message, CSRF token and page rendered) and before it is
 * sent: the auth adapter commits the request's writes there.
 */
export type BeforeSend = () => void | Promise<void>;

async function headerParts(request: FastifyRequest, csrf: string): Promise<SafeHtml[]> {
  const parts = request.server.pageHeaderParts ?? [];
  if (parts.length === 0) return [];
  const page: PageHeaderRequest = {
    caller: request.caller,
    session: request.session,
    csrf,
    db: request.server.db,
    serves: (path) => request.server.servedPaths.has(path),
    language: requestLanguage(request),
  };
  const rendered = await Promise.all(parts.map((part) => part(page)));
  return rendered.filter((part): part is SafeHtml => part !== null);
}

export async function renderPage(
  request: FastifyRequest,
  reply: FastifyReply,
  page: PageRenderer,
  given?: Outcome,
  beforeSend?: BeforeSend,
): Promise<FastifyReply> {
  const caller = request.caller;
  const language = requestLanguage(request);
  const outcome = given && writeOutcome(given, language);
  const loadProps = request.routeOptions.config.pageProps;
  const query = request.query;
  const csrf = csrfToken(request);
  const ctx: PageContext = {
    csrf,
    flash: request.session.takeFlash(),
    user: caller && caller.via === 'session' ? publicUser(caller.user) : null,
    outcome,
    language,
    languages: request.server.languages.tags,
    input: outcome?.status === 'error' ? refillableInput(request) : (takeSavedInput(request) ?? {}),
    errors: outcome?.errors ?? {},
    query: query && typeof query === 'object' ? (query as Record<string, unknown>) : {},
    appName: request.server.config.appName,
    stylesheet: request.server.config.stylesheet,
    serves: (path) => request.server.servedPaths.has(path),
    props: loadProps ? await loadProps(request) : {},
    impersonator: caller?.via === 'session' ? caller.impersonator : undefined,
    headerParts: await headerParts(request, csrf),
  };
  // `pages: { login: ... }` in the config or a plugin: the route names the built-in page.
  const body = await (request.server.pageReplacements.get(page) ?? page)(ctx);
  await beforeSend?.();
  return reply
    .code(outcome?.statusCode ?? 200)
    .header('cache-control', NO_STORE)
    .type('text/html; charset=utf-8')
    .send(mountLinks(body.toString(), request.server.config.basePath));
}

/**
 * Send an outcome the way the client wants it: the JSON envelope (REST, SPA) with the HTTP status
 * equal to `statusCode`; for forms a 303 to `redirect_to` with a one-time flash message, or the
 * route's page when there is nothing to redirect to (or the outcome asks to be rendered).
 */
export async function respond(
  request: FastifyRequest,
  reply: FastifyReply,
  outcome: Outcome,
  beforeSend?: BeforeSend,
): Promise<FastifyReply> {
  if (clientKind(request) !== 'form') {
    const redirectTo = outcome.redirectTo && publicPath(request, outcome.redirectTo);
    const committing = beforeSend?.();
    if (committing) await committing;
    return reply
      .code(outcome.statusCode ?? 200)
      .header('cache-control', NO_STORE)
      .send(envelope(writeOutcome({ ...outcome, redirectTo }, requestLanguage(request))));
  }
  const page = request.routeOptions.config.page;
  if ((outcome.render || !outcome.redirectTo) && page)
    return renderPage(request, reply, page, outcome, beforeSend);
  if (outcome.message)
    request.session.flash(
      outcome.status === 'error' ? 'error' : outcome.status,
      written(outcome.message, requestLanguage(request)),
    );
  await beforeSend?.();
  return reply.redirect(publicPath(request, outcome.redirectTo ?? '/'), 303);
}

/** A form's input kept across a detour (sudo), for one page, one user, once. */
const KEY = 'saved_input';

interface SavedInput {
  path: string;
  userId: number;
  input: Record<string, string>;
}

/** Keep `input` in `session` for the page at `path`, shown next to `userId` (see `takeSavedInput`). */
export function saveInput(
  session: Session,
  path: string,
  userId: number,
  input: Record<string, string>,
): void {
  if (Object.keys(input).length > 0) session.set(KEY, { path, userId, input } satisfies SavedInput);
}

/** The input saved for the page being rendered now, taken out of the session. */
export function takeSavedInput(request: FastifyRequest): Record<string, string> | undefined {
  const saved = request.session.get<SavedInput>(KEY);
  if (!saved || request.method !== 'GET') return undefined;
  const path = request.url.split('?')[0];
  if (saved.path.split('?')[0] !== path || saved.userId !== request.session.userId) return undefined;
  request.session.delete(KEY);
  return saved.input;
}
