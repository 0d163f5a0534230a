// Citadel inside an existing Fastify application, under /auth.
// Run: npx tsx examples/embed-fastify/server.ts   (SQLite in ./data, mails to the log)
import Fastify, { type FastifyInstance } from 'fastify';
import citadel, { type CitadelFastifyOptions } from '../../src/fastify.ts';
import { getCaller, requireCaller, requireSudo } from '../../src/index.ts';

/** The host application: its own routes, and Citadel's under /auth. */
export async function buildApp(options: CitadelFastifyOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({ logger: options.logLevel === 'silent' ? false : true });
  await app.register(citadel, { prefix: '/auth', ...options });

  // The host's own routes know who is calling: `request.caller` (null when anonymous) is set for
  // them as for Citadel's, from the same session cookie or bearer token; `getCaller(request)`
  // gives the public view ({ user, session?, token? }).
  app.get('/', async (request) => ({
    app: 'my application',
    signIn: '/auth/login',
    user: request.caller?.user.username ?? null,
  }));
  app.get('/whoami', async (request) => ({
    caller: await getCaller(request),
    via: request.caller?.via ?? null,
  }));
  // 401 without a caller.
  app.get('/dashboard', { preHandler: requireCaller }, async (request) => ({
    user: request.caller!.user.username,
  }));
  // Sensitive: 401 without a caller, 403 for a session that has not confirmed its identity
  // recently (Citadel's /auth/sudo page grants that).
  app.post('/billing/close-account', { preHandler: requireSudo }, async (request) => ({
    closed: request.caller!.user.username,
  }));
  return app;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const app = await buildApp({ appUrl: 'http://localhost:3000' });
  await app.listen({ port: 3000, host: '127.0.0.1' });
}
