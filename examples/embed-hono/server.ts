// Citadel's Fetch-API handler inside a Hono application (on Node through @hono/node-server), under
// /auth. The same handler serves a Next.js route handler (app/auth/[...path]/route.ts:
// `export { handler as GET, handler as POST, ... }`), Bun (`Bun.serve({ fetch: handler })`) or
// Deno (`Deno.serve(handler)`).
// Run: npx tsx examples/embed-hono/server.ts   (SQLite in ./data, mails to the log)
import { Hono, type Context } from 'hono';
import { serve, type HttpBindings } from '@hono/node-server';
import {
  createFetchHandler,
  honoRequireCaller,
  honoRequireSudo,
  type CitadelFetchHandler,
  type CreateFetchHandlerOptions,
  type ResolvedCaller,
} from '../../src/index.ts';

const MOUNT = '/auth';

type Env = { Bindings: HttpBindings; Variables: { caller: ResolvedCaller } };

/** The host application: its own routes, and Citadel's under /auth. */
export function buildApp(options: CreateFetchHandlerOptions = {}): {
  app: Hono<Env>;
  citadel: CitadelFetchHandler;
} {
  // basePath: Citadel takes /auth off the URL and puts it in front of its links and redirects.
  const citadel = createFetchHandler({ basePath: MOUNT, ...options });
  const app = new Hono<Env>();

  // Everything under /auth is Citadel's. A Fetch Request carries no client address: hand it over
  // (rate limits and security events use it; X-Forwarded-For is read per `trustProxy`).
  const toCitadel = (c: Context<Env>) =>
    citadel(c.req.raw, { clientAddress: c.env.incoming.socket.remoteAddress });
  app.all(MOUNT, toCitadel);
  app.all(`${MOUNT}/*`, toCitadel);

  // The host's own routes know who is calling.
  app.get('/', async (c) => {
    const caller = await citadel.getCaller(c.req.raw);
    return c.json({ app: 'my application', signIn: `${MOUNT}/login`, user: caller?.user.username ?? null });
  });
  app.get('/whoami', async (c) => c.json({ caller: await citadel.getCaller(c.req.raw) }));
  app.get('/dashboard', honoRequireCaller(citadel), (c) => c.json({ user: c.get('caller').user.username }));
  // Sensitive: a session must have confirmed its identity recently (Citadel's /auth/sudo).
  app.post('/billing/close-account', honoRequireSudo(citadel), (c) =>
    c.json({ closed: c.get('caller').user.username }),
  );
  return { app, citadel };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { app, citadel } = buildApp({ appUrl: 'http://localhost:3000/auth' });
  await citadel.ready();
  const server = serve({ fetch: app.fetch, port: 3000, hostname: '127.0.0.1' }, () =>
    console.log('listening on http://127.0.0.1:3000 (Citadel under /auth)'),
  );
  // One way to stop: close the HTTP server, then Citadel (database, mail, Redis).
  process.once('SIGINT', () => server.close(() => void citadel.close()));
}
