// Citadel's Node (req, res) handler inside a plain node:http application, or an Express one,
// under /auth.
// Run: npx tsx examples/embed-express-or-http/server.ts   (SQLite in ./data, mails to the log)
import { createServer as createHttpServer, type Server } from 'node:http';
import express, { type Express } from 'express';
import {
  createServer,
  expressRequireCaller,
  expressRequireSudo,
  getCaller,
  type CreateServerOptions,
  type CitadelServer,
  type RequestWithCaller,
} from '../../src/index.ts';

const MOUNT = '/auth';

/** node:http: `/` is the application's own, everything under /auth goes to Citadel. */
export async function buildApp(
  options: CreateServerOptions = {},
): Promise<{ http: Server; citadel: CitadelServer }> {
  // basePath puts /auth in front of Citadel's links and redirects; its routes stay at / inside.
  const citadel = await createServer({ basePath: MOUNT, ...options });
  const http = createHttpServer((req, res) => {
    const url = req.url ?? '/';
    if (url === MOUNT || url.startsWith(`${MOUNT}/`) || url.startsWith(`${MOUNT}?`)) {
      req.url = url.slice(MOUNT.length) || '/';
      return citadel.handler(req, res);
    }
    // The application's own answer knows who is calling (session cookie or bearer token).
    void citadel.getCaller(req).then((caller) => {
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          app: 'my application',
          signIn: `${MOUNT}/login`,
          user: caller?.user.username ?? null,
        }),
      );
    });
  });
  http.on('close', () => void citadel.close());
  return { http, citadel };
}

/** Express: the same handler under `app.use('/auth', …)` (Express strips the prefix). */
export async function buildExpressApp(
  options: CreateServerOptions = {},
): Promise<{ app: Express; citadel: CitadelServer }> {
  const citadel = await createServer({ basePath: MOUNT, ...options });
  const app = express();
  app.use(MOUNT, citadel.handler);
  app.get('/whoami', async (req, res) => {
    res.json({ caller: await getCaller(req, citadel) });
  });
  // 401 without a caller; then `req.caller`.
  app.get('/dashboard', expressRequireCaller(citadel), (req, res) => {
    res.json({ user: (req as RequestWithCaller).caller!.user.username });
  });
  // 401 without a caller, 403 for a session without sudo (Citadel's /auth/sudo grants it).
  app.post('/billing/close-account', expressRequireSudo(citadel), (req, res) => {
    res.json({ closed: (req as RequestWithCaller).caller!.user.username });
  });
  return { app, citadel };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { app } = await buildExpressApp({ appUrl: 'http://localhost:3000' });
  app.listen(3000, '127.0.0.1', () =>
    console.log('listening on http://127.0.0.1:3000 (Citadel under /auth)'),
  );
}
