import type { FastifyInstance } from 'fastify';

/** What shutdown needs of a `CitadelServer` (ops sits below the composition root in src/app). */
export interface DrainableServer {
  app: FastifyInstance;
  close(): Promise<void>;
}

/** How long SIGTERM waits for requests in flight before it cuts their connections. */
export const DRAIN_LIMIT_MS = 10_000;

/**
 * Stop accepting connections, let requests in flight finish (new requests on kept-alive
 * connections get 503 meanwhile), then close the pools. Past `limitMs` the remaining connections
 * are cut so shutdown always ends.
 */
export async function drainAndClose(
  server: DrainableServer,
  limitMs = DRAIN_LIMIT_MS,
): Promise<{ forced: boolean }> {
  let forced = false;
  const timer = setTimeout(() => {
    forced = true;
    server.app.server.closeAllConnections();
  }, limitMs);
  try {
    await server.close();
  } finally {
    clearTimeout(timer);
  }
  return { forced };
}

/** SIGTERM and SIGINT drain the server and exit 0 (1 if closing itself failed). */
export function exitGracefullyOnSignals(server: DrainableServer): void {
  const stop = (signal: string) => {
    server.app.log.info(`${signal}: shutting down (requests in flight finish first)`);
    drainAndClose(server).then(
      ({ forced }) => {
        if (forced) server.app.log.warn(`requests still running after ${DRAIN_LIMIT_MS} ms were cut`);
        process.exit(0);
      },
      (error: unknown) => {
        server.app.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}
