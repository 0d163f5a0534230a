import type { FastifyInstance } from 'fastify';
import type { PoolUse } from '../db/open.ts';
import { safeEqual, sha256Hex } from '../core/crypto.ts';
import { healthRoutes } from './health.ts';
import type { ReadinessDependencies } from './readiness.ts';
import { CitadelMetrics, installMetrics } from './metrics.ts';

export interface OperationsOptions {
  /** METRICS_TOKEN: /metrics exists only when it is set, and answers only to this bearer token. */
  metricsToken?: string;
  poolUse: () => PoolUse;
  /** What /readyz asks: the database, and Redis when configured. */
  readiness: ReadinessDependencies;
}

/** True only for `Bearer <token>`; compared as digests, in constant time, so no length leaks. */
export function bearerMatcher(token: string): (header: string | undefined) => boolean {
  const expected = sha256Hex(token);
  return (header) => {
    const presented = /^Bearer (\S+)$/i.exec(header ?? '')?.[1] ?? '';
    return safeEqual(sha256Hex(presented), expected);
  };
}

/**
 * Health, readiness and metrics. Their routes are `sessionless`: no session is loaded and no caller
 * resolved (a metrics bearer token is not a personal access token). The metrics hook sees every
 * request of the application.
 */
export async function registerOperations(app: FastifyInstance, options: OperationsOptions): Promise<void> {
  const metricsToken = options.metricsToken;
  const metrics = metricsToken ? new CitadelMetrics(options.poolUse) : undefined;
  if (metrics)
    app.addHook('onResponse', (request, reply, done) => {
      metrics.observe(request, reply);
      done();
    });
  await app.register(async (ops) => {
    await healthRoutes(ops, options.readiness);
    if (metrics && metricsToken) installMetrics(ops, metrics, bearerMatcher(metricsToken));
  });
}
