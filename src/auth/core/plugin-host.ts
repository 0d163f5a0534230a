import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { CitadelPlugin, PasswordChangedListener, SignedInListener } from '../../plugin.ts';
import { UserService } from './users.ts';
import { PasswordHasher } from './passwords.ts';
import { RememberTokens } from './remember.ts';
import { resolveCaller } from './caller.ts';
import { restoreRememberedSession } from './sessions.ts';
import './sign-in-facts.ts';
import { PersonalAccessTokens } from './personal-access-tokens.ts';
import { ActionRegistry } from './sign-in/action-registry.ts';
import { FactorRegistry } from './factors/registry.ts';
import type { PageRenderer } from '../../http/respond.ts';
import { registerEndpoints } from './endpoint-routes.ts';
import { serveAuthDocs } from './docs-routes.ts';
import type { AnyEndpoint } from './endpoint.ts';
import { clientRoutesEndpoint } from './client-routes.ts';

declare module 'fastify' {
  interface FastifyInstance {
    users: UserService;
    passwords: PasswordHasher;
    remember: RememberTokens;
    tokens: PersonalAccessTokens;
    /** Every pipeline action of the plugins and the configuration, by id. */
    actions: ActionRegistry;
    /** Every factor of the plugins (built-in first), for the two-factor sign-in step and sudo. */
    factorRegistry: FactorRegistry;
    /** Every declared auth endpoint (built-in and plugins), in plugin order. */
    authEndpoints: readonly AnyEndpoint[];
    /** The plugins' `signedIn` listeners, in plugin order. */
    signInListeners: readonly SignedInListener[];
    /** The plugins' `passwordChanged` listeners, in plugin order (run by `passwordChanged()`). */
    passwordChangedListeners: readonly PasswordChangedListener[];
  }
}

export interface AuthCoreOptions {
  plugins: readonly CitadelPlugin[];
  /**
   * Built-in page renderer to its replacement (the page registry, `auth/pages.ts`, resolves the
   * plugins' and the configuration's `pages`); the core only serves what it is given.
   */
  pageReplacements: ReadonlyMap<PageRenderer, PageRenderer>;
  /** The resource API's base path (`/api`), when there is one, for the typed client's route list. */
  apiBaseUrl?: string | null;
}

/**
 * The auth core: the user, password, remember-me and token services every capability shares,
 * who the caller is (remember-me restoration, then the session or the bearer token) on every
 * request, and the plugins' actions, factors, page replacements, listeners and routes.
 */
export const authCore = fp(async function authCore(
  app: FastifyInstance,
  { plugins, pageReplacements, apiBaseUrl = null }: AuthCoreOptions,
) {
  const { db, clock, config } = app;
  app.decorate('users', new UserService(db, clock));
  app.decorate('passwords', new PasswordHasher());
  app.decorate('remember', new RememberTokens(db, clock, config.limits.rememberTtl));
  app.decorate('tokens', new PersonalAccessTokens(db, clock, config.limits.tokenLastUsedInterval));

  const actions = new ActionRegistry();
  for (const plugin of plugins) for (const action of plugin.actions ?? []) actions.register(action);
  for (const action of config.actions ?? []) actions.register(action);
  app.decorate('actions', actions);
  app.decorate('factorRegistry', new FactorRegistry(plugins.flatMap((plugin) => plugin.factors ?? [])));
  app.decorate('pageReplacements', pageReplacements);
  app.decorate(
    'signInListeners',
    plugins.flatMap((plugin) => (plugin.events?.signedIn ? [plugin.events.signedIn] : [])),
  );
  app.decorate(
    'passwordChangedListeners',
    plugins.flatMap((plugin) => (plugin.events?.passwordChanged ? [plugin.events.passwordChanged] : [])),
  );

  app.decorate(
    'signInFacts',
    Object.fromEntries(plugins.flatMap((plugin) => Object.entries(plugin.signInFacts ?? {}))),
  );
  app.decorateRequest('signInFactsRead', null);

  const requestListeners = plugins.flatMap((plugin) =>
    plugin.events?.request ? [plugin.events.request] : [],
  );
  // Set on every request below; a host application's own `caller` keeps its meaning on its routes.
  if (!app.hasRequestDecorator('caller')) app.decorateRequest('caller', null);
  app.addHook('onRequest', async (request, reply) => {
    // Health, readiness and metrics: no session was loaded, and no caller is wanted.
    if (request.routeOptions.config.sessionless) return;
    // A bad bearer token throws (401); request.caller then stays null (never a host's value).
    request.caller = null;
    await restoreRememberedSession(request, reply);
    request.caller = await resolveCaller(request);
    for (const listener of requestListeners) await listener(request);
  });

  for (const plugin of plugins) {
    const { routes, endpoints } = plugin;
    if (!routes && !endpoints) continue;
    await app.register(async (scope) => {
      if (endpoints) registerEndpoints(scope, endpoints);
      await routes?.(scope);
    });
  }
  const endpoints = plugins.flatMap((plugin) => plugin.endpoints ?? []);
  const clientRoutes = clientRoutesEndpoint(endpoints, apiBaseUrl);
  registerEndpoints(app, [clientRoutes]);
  app.decorate('authEndpoints', [...endpoints, clientRoutes]);
  serveAuthDocs(app, [
    ...plugins.map((plugin) => ({ name: plugin.name, endpoints: plugin.endpoints ?? [] })),
    { name: 'client', endpoints: [clientRoutes] },
  ]);
});
