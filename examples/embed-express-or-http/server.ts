// Citadel's Node (req, res) handler inside a plain node:http application, under /auth. With
// Express it is the same handler: `app.use('/auth', server.handler)` (Express strips the prefix).
// Run: npx tsx examples/embed-express-or-http/server.ts   (SQLite in ./data, mails to the log)
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer, type CreateServerOptions, type CitadelServer } from '../../src/index.ts';

const MOUNT = '/auth';

/** The host application: `/` is its own, everything under /auth goes to Citadel. */
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
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ app: 'my application', signIn: `${MOUNT}/login` }));
  });
  http.on('close', () => void citadel.close());
  return { http, citadel };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { http } = await buildApp({ appUrl: 'http://localhost:3000' });
  http.listen(3000, '127.0.0.1', () =>
    console.log('listening on http://127.0.0.1:3000 (Citadel under /auth)'),
  );
}
