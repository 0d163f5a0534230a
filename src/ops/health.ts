import type { FastifyInstance } from 'fastify';
import { checkReadiness, type ReadinessDependencies } from './readiness.ts';

/**
 * GET /healthz: the process serves. GET /readyz: its dependencies answer too (503 otherwise,
 * naming which did not). Neither reads a session or a token.
 */
export async function healthRoutes(app: FastifyInstance, deps: ReadinessDependencies): Promise<void> {
  const alive = JSON.stringify({ status: 'ok' });
  const bare = { config: { sessionless: true } };
  app.get('/healthz', bare, async (_request, reply) => reply.type('application/json').send(alive));

  app.get('/readyz', bare, async (_request, reply) => {
    const { ready, checks } = await checkReadiness(deps);
    const failed = Object.keys(checks).filter((name) => checks[name] !== 'ok');
    reply.header('cache-control', 'no-store');
    if (ready) return reply.send({ status: 'ok', checks });
    return reply.code(503).send({ status: 'unavailable', failed, checks });
  });
}
