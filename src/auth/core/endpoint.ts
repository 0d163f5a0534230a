import type { Static, TSchema } from '@sinclair/typebox';
import type { Caller, PublicUser } from '../../http/security/caller.ts';
import type { CitadelServices } from './services.ts';
import type { RequestContext } from './request-context.ts';
import type { OrganizationMembership } from './tenancy.ts';
import type { PageRenderer } from '../../http/response/respond.ts';
import type { Text } from '../../core/i18n/catalog.ts';

/**
 * One HTTP endpoint as data: everything Citadel needs to serve it, validate
 * its input, serialize and document its answers, redact its secrets and type a client for it.
 * Built-in capabilities and plugins declare their routes this way; `endpoint-routes.ts` turns a
 * declaration into a Fastify route, `endpoint-openapi.ts` into OpenAPI operations.
 */

export type EndpointMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** An error status an endpoint may declare in `failures`. */
export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 410 | 413 | 415 | 422 | 429 | 503;

/**
 * Who may call: anyone (`anonymous`, the caller is still resolved and given), anyone with the
 * caller given when there is one (`optional`), a signed-in caller (`session`: a browser session,
 * or a bearer token holding `ability`), or a caller in sudo mode (`sudo`: a session with recent
 * step-up, or a bearer token holding `ability`), or an administrator (`admin`: the admin role, not
 * while acting as another user, 403 `admin.forbidden` otherwise; and for a change, any method but
 * GET, sudo as `sudo` requires it).
 */
export type EndpointAuth = 'anonymous' | 'optional' | 'session' | 'sudo' | 'admin';

/** The handler's `caller` under an access rule: never null where the rule requires a caller. */
export type CallerOf<A extends EndpointAuth> = A extends 'anonymous' | 'optional' ? Caller | null : Caller;

/**
 * A counter the endpoint hits before its handler runs, once its input is decoded but before it is
 * refused as invalid (so invalid requests count too). The counter's key is `<name>:<who>`.
 */
export interface EndpointRateLimit {
  /** Counter name, unique per rule (`send:register:ip`). */
  name: string;
  /** The limit (a number, or read from the settings). */
  max: number | ((services: CitadelServices) => number);
  windowSeconds: number | ((services: CitadelServices) => number);
  /**
   * Whose counter: the client address (default), the signed-in user, or a key taken from the
   * decoded input (`undefined`: this request is not counted by this rule; `errors` says which
   * fields are invalid).
   */
  per?: 'ip' | 'user' | ((input: RateLimitInput) => string | undefined);
}

/**
 * A plugin's rate-limit rule for routes it does not declare (a plugin's
 * `rateLimits`): another plugin's endpoints, a hand-written route, the resource API. Every request
 * whose method and route path match hits the counter, before the route's own rules and before its
 * input is validated (so invalid requests count too). `per` functions see the request's raw params,
 * query and body (`errors` is empty).
 */
export interface PluginRateLimit extends EndpointRateLimit {
  /**
   * The route's path as it is declared, below the server's base path (`/login`,
   * `/api/v1/posts/:id`), or a test on it.
   */
  path: string | ((path: string) => boolean);
  /** The methods it counts (default: every method). */
  method?: EndpointMethod | readonly EndpointMethod[];
}

/** Whether a plugin's rule counts a route of these methods at this path (below the base path). */
export function pluginRuleMatches(rule: PluginRateLimit, methods: readonly string[], path: string): boolean {
  if (rule.method !== undefined && ![rule.method].flat().some((method) => methods.includes(method)))
    return false;
  return typeof rule.path === 'string' ? rule.path === path : rule.path(path);
}

/** What a rate-limit rule may key on. */
export interface RateLimitInput {
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  body: Record<string, unknown>;
  /** The input's problems by field (a rule may count only valid requests). */
  errors: Record<string, Text>;
  ip: string;
  caller: Caller | null;
}

/**
 * What a handler is given: the request as plain data (`caller`, `ip`, `userAgent`, `cookies`,
 * `session`, `services`, … : `RequestContext`), with its params, query and body already validated
 * against the declaration's schemas. No HTTP framework object: what the handler changes (the
 * session and its events, cookies) the adapter commits before the answer.
 */
export interface EndpointInput<
  P = unknown,
  Q = unknown,
  B = unknown,
  A extends EndpointAuth = EndpointAuth,
> extends RequestContext {
  params: P;
  query: Q;
  body: B;
  caller: CallerOf<A>;
}

/**
 * An `orgRole` declaration's input: the caller's membership of the organization the path's `:id`
 * names, loaded and checked before the handler runs.
 */
export interface OrgEndpointInput<
  P = unknown,
  Q = unknown,
  B = unknown,
  A extends EndpointAuth = EndpointAuth,
> extends EndpointInput<P, Q, B, A> {
  membership: OrganizationMembership;
}

/** The envelope's parts a handler answers with; Citadel adds `action` and the HTTP status. */
export interface EndpointResult {
  /** The envelope's `action` when it is not the endpoint's (a sign-in held for another step). */
  action?: string;
  status: 'success' | 'info' | 'error';
  /** Default 200. */
  statusCode?: number;
  /** A catalog text (`messages.text('key')`) is written in the reader's language. */
  message?: Text;
  user?: PublicUser;
  data?: Record<string, unknown>;
  redirect_to?: string;
  /** Per-field messages of an answer that is an error in itself (an invalid link's page). */
  errors?: Record<string, Text>;
  /** Top-level fields of the envelope beside `data` (`token`, `tokens`). */
  fields?: Record<string, unknown>;
  /** Form clients: show the endpoint's page with this result instead of redirecting. */
  render?: boolean;
  /** Answer with a 302 to this absolute URL instead of the envelope (the start of an OAuth flow). */
  location?: string;
  /** Headers of the answer (`retry-after` of a refusal shown to a form client as a redirect). */
  headers?: Record<string, string>;
  /**
   * Answer with exactly this JSON (status `statusCode`) instead of the envelope, for every client:
   * a protocol's own shape (OAuth's token and error answers, RFC 6749).
   */
  json?: Record<string, unknown>;
}

/** One endpoint's declaration: see `defineEndpoint`. */
export interface Endpoint<
  P extends TSchema = TSchema,
  Q extends TSchema = TSchema,
  B extends TSchema = TSchema,
  R extends Record<number, TSchema> = Record<number, TSchema>,
  M extends EndpointMethod = EndpointMethod,
  Path extends string = string,
  Action extends string = string,
  A extends EndpointAuth = EndpointAuth,
  O extends string = never,
> {
  method: M;
  /** Express-style: static segments and `:name` parameters (`/tokens/:id`). */
  path: Path;
  /** The envelope's `action` of every answer, errors included. */
  action: Action;
  auth: A;
  /** The ability a bearer token needs (sessions hold every ability of their user). */
  ability?: string;
  /**
   * An organization endpoint (its path has `:id`, the organization's id): the role the caller needs
   * there, `'owner'`, `'admin'` (an owner or an admin), `'member'` (any member) or a permission
   * (`projects:update`, held by the caller's role). A non-member gets 404, a member short of it 403,
   * and the handler receives the membership (`input.membership`). Checked by the organizations
   * plugin's tenancy, once the input is valid.
   */
  orgRole?: O;
  /** `auth: 'admin'`: where a form client returns after the sudo page (default: the page it came from). */
  sudoReturn?: (params: Record<string, string>) => string;
  /** `false`: a browser session only, bearer tokens are refused (401). */
  bearer?: false;
  /**
   * `'forbidden'`: the endpoint changes how an account proves who it is or who may act for it
   * (passwords, factors, tokens, email, memberships), so a session acting as another user
   * (impersonation) is refused with 403 `impersonation.forbidden` before the input is read.
   */
  impersonation?: 'forbidden';
  params?: P;
  query?: Q;
  body?: B;
  /** Each status the endpoint answers with success, and its body. */
  responses: R;
  /**
   * The error statuses the handler itself can send (401 for wrong credentials, 404 for an unknown
   * id, 409, …). Those that follow from the rest of the declaration (401 without a caller, 403 for
   * sudo or an ability, 415 and 422 for a body, 429 for a rate limit) are added by Citadel; together
   * they are every status the endpoint answers with, as the OpenAPI document and the client say.
   */
  failures?: readonly ErrorStatus[];
  rateLimit?: EndpointRateLimit | readonly EndpointRateLimit[];
  /** Path or query parameters that carry a secret (a token): redacted from every log line. */
  secrets?: readonly string[];
  summary?: string;
  description?: string;
  /** Other paths serving the same endpoint for form clients (`POST /tokens/revoke/:id`). */
  aliases?: readonly { method: EndpointMethod; path: string }[];
  /** Form clients: the page of this endpoint, and what it shows besides the result. */
  page?: PageRenderer;
  /**
   * What the page shows besides the result, for every answer (a refusal too): the input decoded as
   * the handler's is, with only the fields that passed.
   */
  pageProps?: (input: PageInput<P, Q, B>) => unknown;
  /**
   * Rules of the body across fields or from settings (password length limits, "email or username"),
   * run on the decoded body even when the schema failed, so every error is reported at once.
   */
  refine?: (
    body: Partial<StaticOrUndefined<B>> & Record<string, unknown>,
    services: CitadelServices,
  ) => Record<string, Text> | void;
  /** Reads JSON only (the passkey ceremonies): any other body is 415, before the CSRF check. */
  jsonOnly?: boolean;
  /** Skip the CSRF check: only for endpoints that change nothing. */
  csrfExempt?: boolean;
  /**
   * Called by clients of any origin, without credentials (OAuth's token, registration, userinfo;
   * metadata documents): every answer, errors too, carries `Access-Control-Allow-Origin: *`, a
   * preflight `OPTIONS` is answered, and a cross-site request is not refused for being one. Only
   * for endpoints that authenticate the client itself, never by the browser's session.
   */
  cors?: true;
  /**
   * A JSON resource (a JWK Set, the route list): it answers JSON for any `Accept`, never a page or
   * a redirect. Only for GET endpoints without a page.
   */
  alwaysJson?: true;
  /**
   * A page and nothing else (the GET of a form): its JSON answer is an empty info envelope, so the
   * typed client (`citadel/client`) has no method for it. Set by `pageEndpoint()`.
   */
  pageOnly?: boolean;
  // A method, not a property: a list of endpoints (`AnyEndpoint`) holds handlers of every access rule.
  handler(input: HandlerInput<P, Q, B, A, O>): Promise<EndpointResult>;
}

type HandlerInput<P extends TSchema, Q extends TSchema, B extends TSchema, A extends EndpointAuth, O> = [
  O,
] extends [never]
  ? EndpointInput<StaticOrUndefined<P>, StaticOrUndefined<Q>, StaticOrUndefined<B>, A>
  : OrgEndpointInput<StaticOrUndefined<P>, StaticOrUndefined<Q>, StaticOrUndefined<B>, A>;

type StaticOrUndefined<T extends TSchema> = TSchema extends T ? undefined : Static<T>;

/** A part of a page's input: the fields of the schema that passed (a part without one: none). */
type ValidPart<T extends TSchema> = TSchema extends T ? Record<string, never> : Partial<Static<T>>;

/** A page's input (`pageProps`): the request's context and the fields of its input that passed. */
export type PageInput<
  P extends TSchema = TSchema,
  Q extends TSchema = TSchema,
  B extends TSchema = TSchema,
> = EndpointInput<ValidPart<P>, ValidPart<Q>, ValidPart<B>>;

/**
 * Types a declaration, keeping its method, path, action and schemas literal for the typed client
 * (`citadel/client`).
 */
export function defineEndpoint<
  P extends TSchema = TSchema,
  Q extends TSchema = TSchema,
  B extends TSchema = TSchema,
  const R extends Record<number, TSchema> = Record<number, TSchema>,
  const M extends EndpointMethod = EndpointMethod,
  const Path extends string = string,
  const Action extends string = string,
  const A extends EndpointAuth = EndpointAuth,
  const O extends string = never,
>(endpoint: Endpoint<P, Q, B, R, M, Path, Action, A, O>): Endpoint<P, Q, B, R, M, Path, Action, A, O> {
  return endpoint;
}

/** Any endpoint, for lists of them. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a list holds endpoints of every schema
export type AnyEndpoint = Endpoint<any, any, any, any, EndpointMethod, string, string, EndpointAuth, any>;
