import type { CitadelPlugin, PasswordChangedListener, RequestListener, SignedInListener } from './plugin.ts';
import { UserService } from './users.ts';
import { PasswordHasher } from './passwords.ts';
import { RememberTokens } from './remember.ts';
import type { SignInFact } from './sign-in-facts.ts';
import type { Tenancy } from './tenancy.ts';
import { PersonalAccessTokens } from './personal-access-tokens.ts';
import { ActionRegistry } from './sign-in/action-registry.ts';
import { FactorRegistry } from './factors/registry.ts';
import type { PageHeaderPart, PageRenderer } from '../../http/response/respond.ts';
import type { ServedPaths } from '../../http/html/served-paths.ts';
import type { AnyEndpoint } from './endpoint.ts';
import type { EndpointGroup } from './endpoint-openapi.ts';
import { clientRoutesEndpoint } from './client-routes.ts';
import { coreEndpointsLeft } from './security-event-list.ts';
import { pluginHooks, withHooks } from './plugin-hooks.ts';
import type { BearerVerifier } from './caller.ts';
import type { PluginOptionsMap } from './plugin-options.ts';
import type { CitadelServices, Log } from './services.ts';
import { securityEventTypes } from './security-events.ts';
import { startEventRetention } from './event-retention.ts';
import { accountSettings } from './account-settings.ts';
import { CORE_ERROR_CODES } from './error-codes.ts';
import type { CoreServices } from '../../http/core-services.ts';

declare module './services.ts' {
  interface CitadelServices {
    users: UserService;
    passwords: PasswordHasher;
    remember: RememberTokens;
    tokens: PersonalAccessTokens;
    /** Every pipeline action of the plugins and the configuration, by id. */
    actions: ActionRegistry;
    /** Every factor of the plugins (built-in first), for the two-factor sign-in step and sudo. */
    factorRegistry: FactorRegistry;
    /** Every declared auth endpoint (built-in and plugins) in plugin order, then the core's own. */
    authEndpoints: readonly AnyEndpoint[];
    /** The same endpoints by who declares them: each plugin (by id), then the core's. */
    authEndpointGroups: readonly ServedEndpointGroup[];
    /** The plugins' `signedIn` hooks, in plugin order. */
    signInListeners: readonly SignedInListener[];
    /** The plugins' `request` hooks, in plugin order. */
    requestListeners: readonly RequestListener[];
    /** The plugins' `passwordChanged` hooks, in plugin order (run by `passwordChanged()`). */
    passwordChangedListeners: readonly PasswordChangedListener[];
    /** Every plugin's sign-in facts, by name. */
    signInFacts: Readonly<Record<string, SignInFact>>;
    /** The plugins' bearer verifiers, in plugin order (asked before personal access tokens). */
    bearerVerifiers: readonly BearerVerifier[];
    /** The organizations plugin's tenancy, or null when no plugin brings one. */
    tenancy: Tenancy | null;
    /** The plugins' page header parts, in plugin order (the organization switcher). */
    pageHeaderParts: readonly PageHeaderPart[];
    /** The security event types of the core and the present plugins, with their labels. */
    securityEventTypes: ReadonlyMap<string, string>;
    /** The core's and the plugins' declared error codes (`action`s and problem `type`s). */
    errorCodes: readonly string[];
  }
}

/**
 * Endpoints by who declares them: a plugin (named by its id), or the auth core itself
 * (`security-events`, `client`).
 */
export interface ServedEndpointGroup extends EndpointGroup {
  /** The plugin whose routes go with these endpoints; null for the core's own. */
  plugin: CitadelPlugin | null;
}

/**
 * Every auth endpoint as served, by who declares it: each plugin's (with the hooks that select
 * it: `GET /me`'s answer with the fields the plugins' after hooks add), then the core's own:
 * `GET /account/events` when no plugin serves it with a page, and `GET /endpoints` for the typed
 * client. The routes, the auth OpenAPI document and the CLI all read this one list.
 */
export function authEndpointGroups(
  plugins: readonly CitadelPlugin[],
  apiBaseUrl: string | null,
): ServedEndpointGroup[] {
  // Each endpoint's hooks are chosen here, once: one no matcher selects is served as declared.
  const { before, after } = pluginHooks(plugins);
  const served = (endpoint: AnyEndpoint) => withHooks(endpoint, before, after);
  const groups = plugins.map((plugin) => ({
    name: plugin.id,
    plugin,
    endpoints: (plugin.endpoints ?? []).map((endpoint) => served(endpoint)),
  }));
  const pluginEndpoints = groups.flatMap((group) => group.endpoints);
  // The security events list: the core's, unless a plugin serves it with its page (the account center).
  const events = coreEndpointsLeft(pluginEndpoints).map(served);
  const endpoints = [...pluginEndpoints, ...events];
  return [
    ...groups,
    ...(events.length > 0 ? [{ name: 'security-events', plugin: null, endpoints: events }] : []),
    { name: 'client', plugin: null, endpoints: [served(clientRoutesEndpoint(endpoints, apiBaseUrl))] },
  ];
}

export interface AuthServicesOptions {
  plugins: readonly CitadelPlugin[];
  /** Each plugin's options as resolved at start-up (`resolvePluginOptions`), by plugin id. */
  pluginOptions: PluginOptionsMap;
  /** The server's logger. */
  log: Log;
  /** The GET paths the server answers (filled in as routes are registered). */
  servedPaths: ServedPaths;
  /**
   * Built-in page renderer to its replacement (the page registry, `auth/pages.ts`, resolves the
   * plugins' and the configuration's `pages`); the core only serves what it is given.
   */
  pageReplacements: ReadonlyMap<PageRenderer, PageRenderer>;
  /** The server's languages (`serverLanguages`). */
  languages: CitadelServices['languages'];
  /** The resource API's base path (`/api`), when there is one, for the typed client's route list. */
  apiBaseUrl?: string | null;
  /** A request through the server's own pipeline, in process (`services.fetch`). */
  fetch: CitadelServices['fetch'];
}

/**
 * Every service, the core's and the auth core's (users, passwords, remember-me and tokens; the
 * plugins' actions, factors, listeners and sign-in facts), as one plain object: called once by the
 * composition root.
 */
export function createAuthServices(core: CoreServices, options: AuthServicesOptions): CitadelServices {
  const { plugins } = options;
  const { db, clock, config } = core;
  const actions = new ActionRegistry();
  for (const plugin of plugins) for (const action of plugin.actions ?? []) actions.register(action);
  for (const action of config.actions ?? []) actions.register(action);
  const tenancies = plugins.flatMap((plugin) => (plugin.tenancy ? [plugin.tenancy] : []));
  if (tenancies.length > 1) throw new Error('Only one plugin may bring a tenancy (organizations).');
  const groups = authEndpointGroups(plugins, options.apiBaseUrl ?? null);
  const listeners = <K extends 'signedIn' | 'request' | 'passwordChanged'>(kind: K) =>
    plugins.flatMap((plugin) => (plugin.hooks?.[kind] ? [plugin.hooks[kind]!] : []));
  core.sessions.watchEnds?.(
    plugins.flatMap((plugin) => (plugin.hooks?.sessionEnded ? [plugin.hooks.sessionEnded] : [])),
    db,
  );
  return {
    ...core,
    log: options.log,
    fetch: options.fetch,
    servedPaths: options.servedPaths,
    pageReplacements: options.pageReplacements,
    languages: options.languages,
    pluginOptions: options.pluginOptions,
    users: new UserService(db, clock),
    passwords: new PasswordHasher(),
    remember: new RememberTokens(db, clock, config.limits.rememberTtl),
    tokens: new PersonalAccessTokens(db, clock, config.limits.tokenLastUsedInterval),
    actions,
    factorRegistry: new FactorRegistry(plugins.flatMap((plugin) => plugin.factors ?? [])),
    authEndpoints: groups.flatMap((group) => group.endpoints),
    authEndpointGroups: groups,
    signInListeners: listeners('signedIn'),
    requestListeners: listeners('request'),
    passwordChangedListeners: listeners('passwordChanged'),
    signInFacts: Object.fromEntries(
      plugins.flatMap((plugin) => Object.entries(plugin.hooks?.signInFacts ?? {})),
    ),
    bearerVerifiers: plugins.flatMap((plugin) => (plugin.hooks?.bearer ? [plugin.hooks.bearer] : [])),
    tenancy: tenancies[0] ?? null,
    pageHeaderParts: plugins.flatMap((plugin) => (plugin.hooks?.pageHeader ? [plugin.hooks.pageHeader] : [])),
    securityEventTypes: securityEventTypes(plugins),
    errorCodes: [...new Set([...CORE_ERROR_CODES, ...plugins.flatMap((plugin) => plugin.errorCodes ?? [])])],
  };
}

/**
 * Start the core's own work that outlives a request (the security events' retention sweep), then
 * run every plugin's `init` once, in plugin order (the database is migrated). Returns what stops
 * them: each `onClose` callback, the last registered first (the core's last); one that throws is
 * logged and the others still run.
 */
export async function initPlugins(
  plugins: readonly CitadelPlugin[],
  services: CitadelServices,
): Promise<() => Promise<void>> {
  const closers: (() => void | Promise<void>)[] = [];
  const close = async () => {
    for (const closer of closers.splice(0).reverse()) {
      try {
        await closer();
      } catch (error) {
        services.log.error({ err: { message: (error as Error).message } }, 'a plugin failed to close');
      }
    }
  };
  try {
    // A bad NOTIFY_EVENTS stops start-up here, with one line (the core's notify reads it).
    accountSettings(services.config);
    closers.push(startEventRetention(services));
    for (const plugin of plugins)
      await plugin.init?.({ db: services.db, services, onClose: (closer) => void closers.push(closer) });
  } catch (error) {
    // What the earlier plugins started stops before start-up fails.
    await close();
    throw error;
  }
  return close;
}
