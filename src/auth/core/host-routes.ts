import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { bearerCaller, resolveCaller, sessionCaller } from './caller.ts';
import { restoreRememberedSession } from './sessions.ts';
import { REMEMBER_COOKIE } from './remember.ts';
import type { RequestContext } from './request-context.ts';
import { hookOf } from '../../http/request/hooks.ts';
import { commitRequest, contextOf, kRequestContext, registerEndpoints } from './endpoint-routes.ts';
import { serveAuthDocs } from './docs-routes.ts';

/**
 * The auth core's HTTP side: who the caller is (remember-me restoration, then the session or the
 * bearer token) on every request, the plugins' `request` listeners, and each plugin's endpoints
 * and assets.
 */
export const authCore = fp(async function authCore(app: FastifyInstance) {
  const { requestListeners } = app.citadel;
  // Set on every request below; a host application's own `caller` keeps its meaning on its routes.
  if (!app.hasRequestDecorator('caller')) app.decorateRequest('caller', null);
  // Each request's context, made when first asked (`contextOf`): a slot in the request's shape.
  if (!app.hasRequestDecorator(kRequestContext)) app.decorateRequest(kRequestContext, null);
  /** The plugins' request listeners from `from` on; a promise only if one of them returns one. */
  const listen = (context: RequestContext, from: number): void | Promise<void> => {
    for (let i = from; i < requestListeners.length; i++) {
      const pending = requestListeners[i]!(context);
      if (pending) return pending.then(() => listen(context, i + 1));
    }
  };
  const identify = async (request: FastifyRequest, reply: FastifyReply) => {
    const context = contextOf(request);
    // A remember-me sign-in is committed here, before anything else runs: its session, its event
    // and its cookies (nothing waits for the answer).
    await restoreRememberedSession(context);
    if (context.session.isDirty || context.cookieWrites.length > 0)
      await commitRequest(request, reply, context);
    request.caller = await resolveCaller(context);
    await listen(context, 0);
  };
  app.addHook(
    'onRequest',
    hookOf((request, reply) => {
      // Health, readiness and metrics: no session was loaded, and no caller is wanted.
      if (request.routeOptions.config.sessionless) return;
      // A bad bearer token throws (401); request.caller then stays null (never a host's value).
      request.caller = null;
      // Called without credentials (OAuth's client endpoints): their Authorization header is the
      // endpoint's own to read (client authentication, a token it checks), never a caller.
      if (request.routeOptions.config.cors) return;
      const signedIn = request.session.userId !== null;
      // The common signed-in request (a session whose user was read with it, no bearer header):
      // decided without a promise; a remember-me restoration or a user still to read takes `identify`.
      if (signedIn && request.headers.authorization === undefined) {
        const caller = sessionCaller(request.server.citadel, request.session);
        if (caller !== undefined) {
          request.caller = caller;
          return requestListeners.length === 0 ? undefined : listen(contextOf(request), 0);
        }
      }
      if (signedIn || request.cookies[REMEMBER_COOKIE]) return identify(request, reply);
      // No credential of any kind (no token, no signed-in session, no remember-me cookie): an
      // anonymous caller, decided without a promise.
      const header = request.headers.authorization;
      if (header === undefined)
        return requestListeners.length === 0 ? undefined : listen(contextOf(request), 0);
      // A bearer token alone (nothing to restore or commit): a service token seen before is
      // decided without a promise too.
      const context = contextOf(request);
      const caller = bearerCaller(context.services, header);
      if (caller instanceof Promise)
        return caller.then((resolved) => {
          request.caller = resolved;
          return listen(context, 0);
        });
      request.caller = caller;
      return listen(context, 0);
    }),
  );

  const groups = app.citadel.authEndpointGroups;
  for (const { plugin, endpoints } of groups) {
    if (plugin === null) {
      registerEndpoints(app, endpoints);
      continue;
    }
    if (!plugin.assets && endpoints.length === 0) continue;
    await app.register(async (scope) => {
      registerEndpoints(scope, endpoints);
      for (const asset of plugin.assets ?? []) {
        const body = asset.read();
        scope.get(asset.path, async (_request, reply) =>
          reply.type(asset.contentType).header('cache-control', 'public, max-age=300').send(body),
        );
      }
    });
  }
  serveAuthDocs(app, groups);
});
