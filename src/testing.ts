/**
 * Helpers for an application's tests: a real Citadel server on a temporary SQLite database.
 * @packageDocumentation
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { createServer, type CitadelServer, type CreateServerOptions } from './app/server.ts';

/** A running test server; `close()` stops it and deletes its database. */
export interface TestServer {
  /** What `createServer()` returned. */
  server: CitadelServer;
  /** The Fastify instance: `app.inject()` for requests without a socket. */
  app: FastifyInstance;
  /** `http://127.0.0.1:<port>`: the server listens on a free loopback port. */
  url: string;
  close(): Promise<void>;
}

/**
 * Start Citadel on a fresh SQLite file in a temporary folder, migrated, listening on a free port,
 * with logs off, no demo data, a random session secret and the environment ignored. `options`
 * override any of these (for example `api`, `plugins`, `migrations`, `clock`).
 */
export async function startTestServer(options: CreateServerOptions = {}): Promise<TestServer> {
  const dir = mkdtempSync(join(tmpdir(), 'citadel-test-'));
  const server = await createServer({
    env: {},
    logger: false,
    seedDemo: false,
    sessionSecret: randomBytes(32).toString('base64url'),
    databaseUrl: `sqlite:${join(dir, 'citadel.sqlite')}`,
    dataDir: dir,
    appUrl: 'http://127.0.0.1',
    ...options,
  });
  const url = await server.app.listen({ port: 0, host: '127.0.0.1' });
  return {
    server,
    app: server.app,
    url,
    async close() {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
