// Citadel inside an existing Fastify application, under /auth.
// Run: npx tsx examples/embed-fastify/server.ts   (SQLite in ./data, mails to the log)
import Fastify, { type FastifyInstance } from 'fastify';
import citadel, { type CitadelFastifyOptions } from '../../src/fastify.ts';

/** The host application: its own routes, and Citadel's under /auth. */
export async function buildApp(options: CitadelFastifyOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({ logger: options.logLevel === 'silent' ? false : true });
  app.get('/', async () => ({ app: 'my application', signIn: '/auth/login' }));
  await app.register(citadel, { prefix: '/auth', ...options });
  // The host's own routes can read who is signed in: Citadel's session cookie is site-wide.
  return app;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const app = await buildApp({ appUrl: 'http://localhost:3000' });
  await app.listen({ port: 3000, host: '127.0.0.1' });
}
