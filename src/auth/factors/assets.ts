import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';

const here = dirname(fileURLToPath(import.meta.url));

/**
 * Browser scripts for passkeys, served from our origin (the CSP allows `script-src 'self'` only):
 * the @simplewebauthn/browser bundle and our small glue script.
 */
export async function passkeyAssets(app: FastifyInstance): Promise<void> {
  const browserEntry = createRequire(import.meta.url).resolve('@simplewebauthn/browser');
  const library = readFileSync(resolve(dirname(browserEntry), '../dist/bundle/index.umd.min.js'), 'utf8');
  const glue = readFileSync(resolve(here, 'assets/passkeys.js'), 'utf8');
  const serve = (body: string) => async (_request: unknown, reply: import('fastify').FastifyReply) =>
    reply.type('text/javascript; charset=utf-8').header('cache-control', 'public, max-age=300').send(body);
  app.get('/assets/simplewebauthn.js', serve(library));
  app.get('/assets/passkeys.js', serve(glue));
}
