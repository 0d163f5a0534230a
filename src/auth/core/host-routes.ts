import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { CitadelPlugin } from '../../plugin.ts';
import { resolveCaller } from './caller.ts';
import { restoreRememberedSession } from './sessions.ts';
import { commitRequest, contextOf, registerEndpoints } from './endpoint-routes.ts';
import { serveAuthDocs } from './docs-routes.ts';

/**
 * The auth core's HTTP side: who the caller is (remember-me restoration, then the session or the
 * bearer token) on every request, the plugins' `request` listeners, and each plugin's routes.
 */
export const authCore = fp(async function authCore(
  app: FastifyInstance,
  { plugins }: { plugins: readonly CitadelPlugin[] },
) {
  const { requestListeners } = app.citadel;
  // Set on every request below; a host application's own `caller` keeps its meaning on its routes.
  if (!app.hasRequestDecorator('caller')) app.decorateRequest('caller', null);
  app.addHook('onRequest', async (request, reply) => {
    // Health, readiness and metrics: no session was loaded, and no caller is wanted.
    if (request.routeOptions.config.sessionless) return;
    // A bad bearer token throws (401); request.caller then stays null (never a host's value).
    request.caller = null;
    const context = contextOf(request);
    // A remember-me sign-in is committed here, before anything else runs: its session, its event
    // and its cookies (nothing waits for the answer).
    await restoreRememberedSession(context);
    if (context.session.isDirty || context.cookieWrites.length > 0)
      await commitRequest(request, reply, context);
    request.caller = await resolveCaller(context);
    for (const listener of requestListeners) await listener(context);
  });

  for (const plugin of plugins) {
    const { routes, endpoints } = plugin;
    if (!routes && !endpoints) continue;
    await app.register(async (scope) => {
      if (endpoints) registerEndpoints(scope, endpoints);
      await routes?.(scope);
    });
  }
  serveAuthDocs(
    app,
    plugins.map((plugin) => ({ name: plugin.id, endpoints: plugin.endpoints ?? [] })),
  );
});
