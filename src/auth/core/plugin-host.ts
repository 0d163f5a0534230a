import type { FastifyInstance } from 'fastify';
import { Type, type TObject, type TProperties } from '@sinclair/typebox';
import fp from 'fastify-plugin';
import type { CitadelPlugin, PasswordChangedListener, SignedInListener } from '../../plugin.ts';
import { UserService } from './users.ts';
import { PasswordHasher } from './passwords.ts';
import { RememberTokens } from './remember.ts';
import { resolveCaller } from './caller.ts';
import { restoreRememberedSession } from './sessions.ts';
import './sign-in-facts.ts';
import './tenancy.ts';
import { PersonalAccessTokens } from './personal-access-tokens.ts';
import { ActionRegistry } from './sign-in/action-registry.ts';
import { FactorRegistry } from './factors/registry.ts';
import type { PageRenderer } from '../../http/respond.ts';
import { registerEndpoints } from './endpoint-routes.ts';
import { serveAuthDocs } from './docs-routes.ts';
import type { AnyEndpoint } from './endpoint.ts';

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
    /** The plugins' `extendMe`: fields `GET /me` adds beside `user`. */
    meExtensions: readonly NonNullable<CitadelPlugin['extendMe']>[];
  }
}

/** `GET /me`'s declaration with the fields the plugins add (optional) in its 200 answer. */
function withMeFields(endpoint: AnyEndpoint, fields: TProperties): AnyEndpoint {
  const ok = endpoint.responses[200] as TObject | undefined;
  if (endpoint.action !== 'me' || !ok || Object.keys(fields).length === 0) return endpoint;
  const optional = Object.fromEntries(
    Object.entries(fields).map(([key, schema]) => [key, Type.Optional(schema)]),
  );
  return {
    ...endpoint,
    responses: { ...endpoint.responses, 200: Type.Object({ ...ok.properties, ...optional }) },
  };
}

/**
 * Each plugin's endpoints as served: `GET /me`'s answer with the fields the plugins' `extendMe`
 * add (`meSchema`), for the routes and the auth OpenAPI document alike.
 */
export function declaredEndpoints(
  plugins: readonly CitadelPlugin[],
): (plugin: CitadelPlugin) => AnyEndpoint[] | undefined {
  const meFields: TProperties = Object.fromEntries(
    plugins.flatMap((plugin) => Object.entries(plugin.meSchema ?? {})),
  );
  return (plugin) => plugin.endpoints?.map((endpoint) => withMeFields(endpoint, meFields));
}

export interface AuthCoreOptions {
  plugins: readonly CitadelPlugin[];
  /**
   * Built-in page renderer to its replacement (the page registry, `auth/pages.ts`, resolves the
   * plugins' and the configuration's `pages`); the core only serves what it is given.
   */
  pageReplacements: ReadonlyMap<PageRenderer, PageRenderer>;
}

/**
 * The auth core: the user, password, remember-me and token services every capability shares,
 * who the caller is (remember-me restoration, then the session or the bearer token) on every
 * request, and the plugins' actions, factors, page replacements, listeners and routes.
 */
export const authCore = fp(async function authCore(
  app: FastifyInstance,
  { plugins, pageReplacements }: AuthCoreOptions,
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
  const tenancies = plugins.flatMap((plugin) => (plugin.tenancy ? [plugin.tenancy] : []));
  if (tenancies.length > 1) throw new Error('Only one plugin may bring a tenancy (organizations).');
  app.decorate('tenancy', tenancies[0] ?? null);
  app.decorate(
    'signInListeners',
    plugins.flatMap((plugin) => (plugin.events?.signedIn ? [plugin.events.signedIn] : [])),
  );
  app.decorate(
    'passwordChangedListeners',
    plugins.flatMap((plugin) => (plugin.events?.passwordChanged ? [plugin.events.passwordChanged] : [])),
  );

  app.decorate(
    'pageHeaderParts',
    plugins.flatMap((plugin) => (plugin.pageHeader ? [plugin.pageHeader] : [])),
  );
  app.decorate(
    'meExtensions',
    plugins.flatMap((plugin) => (plugin.extendMe ? [plugin.extendMe] : [])),
  );
  const declared = declaredEndpoints(plugins);

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
    const { routes } = plugin;
    const endpoints = declared(plugin);
    if (!routes && !endpoints) continue;
    await app.register(async (scope) => {
      if (endpoints) registerEndpoints(scope, endpoints);
      await routes?.(scope);
    });
  }
  const endpoints = plugins.flatMap((plugin) => declared(plugin) ?? []);
  app.decorate('authEndpoints', endpoints);
  serveAuthDocs(
    app,
    plugins.map((plugin) => ({ name: plugin.name, endpoints: declared(plugin) ?? [] })),
  );
});
