import type { Kysely } from 'kysely';
import type { MessageCatalog } from '../../core/i18n/catalog.ts';
import type { Database } from '../../db/schema.ts';
import type { CitadelMigration } from '../../db/migrations/types.ts';
import type { UserRecord } from '../../http/security/caller.ts';
import type { SessionCompanion, SessionEndWatcher } from '../../http/sessions/store.ts';
import type { RequestContext } from './request-context.ts';
import type { PipelineAction } from './sign-in/types.ts';
import type { Factor } from './factors/types.ts';
import type { SignInFact } from './sign-in-facts.ts';
import type {
  AnyEndpoint,
  EndpointInput,
  EndpointMethod,
  EndpointResult,
  PluginRateLimit,
} from './endpoint.ts';
import type { BearerVerifier } from './caller.ts';
import type { CitadelConfig } from '../../config/types.ts';
import type { Tenancy } from './tenancy.ts';
import type { PageHeaderPart } from '../../http/response/respond.ts';
import type { TSchema } from '@sinclair/typebox';
import type { CitadelServices } from './services.ts';
import type { EventDetail, SecurityEventDeclaration } from './security-events.ts';

/** How a session came to be: `rememberSelector` names this device's remember-me row, if any. */
export interface SignedInInfo {
  method: 'sign_in' | 'remember';
  rememberSelector?: string;
  /** The sign-in that ends a sign-up: the account was created just now (registration form or a first social sign-in). */
  registration?: boolean;
}

/** What a `signedIn` hook is told: plain data, no HTTP framework object. */
export interface SignedInEvent {
  user: UserRecord;
  info: SignedInInfo;
  /**
   * The request that signed in: `ip`, `userAgent`, `cookies`, its new `session` (stored with the
   * answer) and Citadel's `services`.
   */
  request: RequestContext;
  /** Set a cookie on the sign-in's answer (`maxAge` in seconds), or clear it with `null`. */
  setCookie(name: string, value: string | null, maxAge?: number): void;
  /**
   * A row written with the new session, in the same transaction (or not at all); `afterCommit`
   * runs once both are stored (a notification mail, say).
   */
  record(row: SessionCompanion): void;
  /**
   * The detail of the `sign_in` security event the core records with the new session (`device`,
   * `method`, `remembered`, `registration`): a listener adds its own facts here (the account
   * center's `new_device`) instead of recording a second `sign_in` row.
   */
  signInDetail: EventDetail;
  /** Run `effect` once the new session and its rows are stored (a notification mail, say). */
  afterCommit(effect: () => void): void;
}

/**
 * Runs after a session is established for a user, on every sign-in path. What it writes (session
 * data, rows through `record`, cookies) is committed by the HTTP adapter with the new session,
 * before the answer is sent.
 */
export type SignedInListener = (event: SignedInEvent) => Promise<void> | void;

/**
 * Runs when a user's password is set (reset or change), on `db`, the transaction that writes the
 * new hash, so that what the old password vouched for ends with it (the account center voids
 * pending email changes).
 */
export type PasswordChangedListener = (db: Kysely<Database>, userId: number, now: Date) => Promise<void>;

/** Runs on every request once its caller is known; changes to `request.session` are stored. */
export type RequestListener = (request: RequestContext) => Promise<void> | void;

/** What a plugin's `init` is given, once the database is migrated. */
export interface PluginInitContext {
  /** The database (every migration applied). */
  db: Kysely<Database>;
  /** Every service of the server, as domain code sees them. */
  services: CitadelServices;
  /**
   * Run `close` when the server shuts down (timers, subscriptions): every plugin's, in the
   * reverse of the order they were given, before the database closes.
   */
  onClose(close: () => void | Promise<void>): void;
}

/**
 * The `action` ids and problem `type`s a plugin's answers carry beside its endpoints' own
 * (`organizations.last_owner`, `impersonation.forbidden`): the typed client's union of errors.
 */
export type PluginErrorCodes = readonly string[];

/**
 * Which endpoints a hook runs around: every criterion given must hold. `path` is the declared
 * path (`/me`, `/organizations/:id`) or one of its aliases; `action` the endpoint's `action`.
 * Resolved once at start-up: an endpoint no matcher selects runs exactly as if there were none.
 */
export interface HookMatch {
  path?: string | RegExp | ((path: string) => boolean);
  action?: string | readonly string[] | RegExp;
  method?: EndpointMethod | readonly EndpointMethod[];
}

/**
 * Runs before the endpoint's handler, with the same input (params, query and body validated, the
 * caller, ip, session, services). Refuses by throwing an `HttpError` (`ForbiddenError`, with its
 * `action`) or by returning a result, which is then the answer; returns nothing to let it through.
 */
export type BeforeHookHandler = (
  input: EndpointInput,
  endpoint: HookTarget,
) => void | EndpointResult | Promise<void | EndpointResult>;

/** The endpoint a hook runs around, as declared. */
export interface HookTarget {
  method: EndpointMethod;
  path: string;
  action: string;
}

/** What an after hook adds to the answer: `data` fields, and top-level `fields` beside `user`. */
export interface HookAddition {
  data?: Record<string, unknown>;
  fields?: Record<string, unknown>;
}

/** Runs after the handler returned (not after it threw), with the input and the result. */
export type AfterHookHandler = (
  input: EndpointInput,
  result: EndpointResult,
  endpoint: HookTarget,
) => void | HookAddition | Promise<void | HookAddition>;

/** A before hook: the endpoints it runs for and what it runs. */
export interface BeforeHook {
  match: HookMatch;
  handler: BeforeHookHandler;
}

/** An after hook: the endpoints it runs for, what it runs and the schemas of what it adds. */
export interface AfterHook {
  match: HookMatch;
  handler: AfterHookHandler;
  /**
   * The schemas of what the hook adds, optional in each selected endpoint's 200 answer (JSON answers
   * are serialized from the schema: an undeclared field is dropped) and its OpenAPI document.
   */
  schema?: { data?: Readonly<Record<string, TSchema>>; fields?: Readonly<Record<string, TSchema>> };
}

/** A static file a plugin serves at the auth routes' prefix (a page's script). */
export interface PluginAsset {
  /** Its GET path (`/assets/passkeys.js`). */
  path: string;
  /** Its `content-type` (`text/javascript; charset=utf-8`). */
  contentType: string;
  /** Its text, read once at start-up. */
  read: () => string;
}

/**
 * Code Citadel runs at given points, every plugin's in plugin order: around the endpoints a matcher
 * selects (`before`, `after`), and at the moments of a session's life that no endpoint owns.
 */
export interface PluginHooks {
  /** Before the endpoints its matcher selects (any plugin's, the core's): may refuse. */
  before?: readonly BeforeHook[];
  /** After the endpoints its matcher selects: may add fields to the answer. */
  after?: readonly AfterHook[];
  /**
   * After every successful sign-in (password, magic link, social, finished pipeline,
   * remember-me): what it writes commits with the new session, before the answer.
   */
  signedIn?: SignedInListener;
  /**
   * Yes/no facts about the user that a sign-in asks once the credential is right, as SQL
   * expressions on the user's id: every plugin's are read in the statement that looks the user up
   * (by name; `signInFactsFor(request, user)` returns them).
   */
  signInFacts?: Readonly<Record<string, SignInFact>>;
  /**
   * When a request carries `Authorization: Bearer`: verifies credentials of the plugin's own kind
   * (service tokens' JWTs, OAuth access tokens), asked in plugin order before personal access
   * tokens; see `BearerVerifier`.
   */
  bearer?: BearerVerifier;
  /** Every request, once its caller is known (for example: note when a session was last seen). */
  request?: RequestListener;
  /** A user's password was set (reset or change), inside the transaction that sets it. */
  passwordChanged?: PasswordChangedListener;
  /**
   * A stored session holding `key` ended (signed out, revoked, replaced by a sign-in, expired):
   * told once per session, by the removal that deleted it; the rows returned commit with it.
   */
  sessionEnded?: SessionEndWatcher;
  /**
   * A part of every page's header for a request (the organization switcher, the admin link), or
   * null: `page` is the caller, the session, the CSRF token, the database and `serves(path)`.
   */
  pageHeader?: PageHeaderPart;
}

/**
 * A capability: its options, its tables (migrations), its endpoints, the sign-in actions and
 * factors it brings, the built-in pages it replaces and its hooks. Every built-in
 * capability is one, made by a factory with typed options (`magicLink({ ttlSeconds: 600 })`); an
 * application adds its own in `plugins: [...]` without editing Citadel's files.
 *
 * The type parameters keep what a factory declares (its id, its options, its endpoints as a
 * readonly tuple), so that a typed client can read the endpoints from `typeof config`.
 */
export interface CitadelPlugin<
  Id extends string = string,
  Options = unknown,
  Endpoints extends readonly AnyEndpoint[] = readonly AnyEndpoint[],
> {
  /** Unique among the server's plugins; what `dependencies` and start-up errors name. */
  id: Id;
  /** Ids of the plugins this one needs (start-up stops, naming them, when one is missing). */
  dependencies?: readonly string[];
  /**
   * The plugin's options as its factory resolved them (the given ones over the defaults). A
   * built-in fills what was not given from the environment at start-up: see `resolveOptions`.
   */
  options?: Options;
  /**
   * Called once at start-up, before the database is opened: the options the plugin runs with,
   * from those given to its factory, then the configuration (its environment, `config.env`), then
   * the defaults. Throws `ConfigError` for a value it cannot
   * use. Without it the plugin runs with `options`. The plugin's code reads the result with
   * `pluginOptions(services, id)`.
   */
  resolveOptions?: (config: CitadelConfig) => Options;
  /** Kysely migrations for the plugin's tables; names sort in the order they run. */
  migrations?: readonly CitadelMigration[];
  /** The tables its migrations create (two plugins may not claim the same table). */
  tables?: readonly string[];
  /**
   * The plugin's HTTP endpoints as declarations: validated, serialized,
   * redacted and documented from their schemas, served at the same prefix as the auth routes.
   */
  endpoints?: Endpoints;
  /**
   * Runs once at start-up, after migrations and before the first request, for work that outlives a
   * request (timers, subscriptions, retention sweeps); what it starts, it stops in `onClose`.
   * Plugins' `init` run in plugin order; start-up fails with the error one throws.
   */
  init?: (context: PluginInitContext) => void | Promise<void>;
  /**
   * The security event types the plugin records, each with what pages call it. The core records
   * sign-ins, sign-outs, sessions, passwords and access tokens; a type no present plugin declares
   * is refused by the writer outside production, and lists show only the types of plugins present.
   */
  events?: readonly SecurityEventDeclaration[];
  /**
   * Every `action` and problem `type` the plugin's answers carry that its endpoints' `action`s do
   * not already say (errors such as `organizations.last_owner`): the client exports the union.
   */
  errorCodes?: PluginErrorCodes;
  /**
   * Code run around the endpoints a matcher selects (by path, action or method): a `before` hook
   * may refuse, an `after` hook may add fields to the answer; and at a sign-in, on every request,
   * when a password is set and when a session ends. Every plugin's, in plugin order.
   */
  hooks?: PluginHooks;
  /** Static files it serves (scripts its pages load), cached by browsers for five minutes. */
  assets?: readonly PluginAsset[];
  /**
   * Its texts: `defineMessages('<plugin id>', en, { de, fr, ar })`. An application replaces any of
   * them by full key (`locales: { de: { '<namespace>.<key>': '…' } }`).
   */
  messages?: MessageCatalog;
  /** Post-sign-in pipeline actions this plugin brings (listed by id in AUTH_*_ACTIONS). */
  actions?: readonly PipelineAction[];
  /**
   * Ways of proving who you are this plugin brings: offered by the `two_factor` sign-in step and
   * by sudo (each as its `scopes` say), after the built-in ones.
   */
  factors?: readonly Factor[];
  // `pages` (the built-in pages it replaces) is declared by `auth/pages.ts`, beside the registry.
  /**
   * The active organization of a request and membership checks, for tenant-scoped resources:
   * brought by the organizations plugin, at most one plugin.
   */
  tenancy?: Tenancy;
  /**
   * Rate-limit rules this plugin puts on routes it does not declare (another plugin's endpoints,
   * the resource API); its own endpoints carry theirs in `rateLimit`.
   * Rule names are unique across the server.
   */
  rateLimits?: readonly PluginRateLimit[];
}

declare module '../../config/types.ts' {
  interface ExtensionSettings {
    /**
     * Every plugin of the server, in order: the built-ins when absent. Add your own after them:
     * `plugins: [...defaultPlugins(), myPlugin]` (`defaultPlugins({ magicLink: false })` leaves one out).
     */
    plugins?: readonly CitadelPlugin[];
  }
}

/**
 * Identity helper that types a plugin, keeping its literal types (id, endpoints' paths, methods
 * and schemas). A plugin with options is a factory around it:
 * `export const notes = (options: Partial<NotesOptions> = {}) => definePlugin({ id: 'notes', options: { ...defaults, ...options }, ... })`.
 */
export function definePlugin<const T extends CitadelPlugin>(plugin: T): T {
  return plugin;
}
