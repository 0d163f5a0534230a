/**
 * A path parameter that is `.` or `..` (raw, or percent-encoded) is answered 404 before any
 * handler: the router would hand it to the route as a value, where a browser or proxy would have
 * resolved it to another route (DELETE /organizations/1/members/.. → DELETE /organizations/1/).
 * Over a real TCP socket: inject and fetch both normalize such paths before they leave.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBlogApp, type BlogApp } from '../support/api-app.ts';
import { routePatterns } from '../support/routes.ts';
import type { TestClient } from '../support/client.ts';

/** Send one request line as written (no normalization) and read the status and body. */
function raw(port: number, method: string, target: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      resolve({ status: Number(text.split(' ')[1]), body: text.slice(text.indexOf('\r\n\r\n') + 4) });
    });
    const head = Object.entries({ host: '127.0.0.1', connection: 'close', ...headers })
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    socket.write(`${method} ${target} HTTP/1.1\r\n${head}\r\n`);
  });
}

const DOTS = ['..', '.', '%2e%2e', '%2E%2E', '%2e', '.%2e'];

describe('a . or .. path parameter is a 404, never another route', () => {
  let t: BlogApp;
  let port: number;
  let owner: TestClient;
  let organization: number;

  beforeAll(async () => {
    t = await startBlogApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as { port: number }).port;
    owner = await t.signIn(await t.createUser());
    const created = await owner.post('/organizations', { name: 'Dots' });
    expect(created.status, created.text).toBe(201);
    organization = created.body.data.organization.id;
  });
  afterAll(async () => t?.close());

  const asOwner = () => ({
    accept: 'application/json',
    cookie: [...owner.cookies].map(([name, value]) => `${name}=${value}`).join('; '),
  });

  it('DELETE /organizations/{id}/members/.. deletes nothing: 404, the organization and its owner stay', async () => {
    for (const dots of DOTS) {
      for (const method of ['DELETE', 'PATCH', 'GET']) {
        const response = await raw(port, method, `/organizations/${organization}/members/${dots}`, asOwner());
        expect(response.status, `${method} ${dots}: ${response.body}`).toBe(404);
      }
      expect((await raw(port, 'DELETE', `/organizations/${dots}`, asOwner())).status).toBe(404);
    }
    const still = await owner.get(`/organizations/${organization}`);
    expect(still.status).toBe(200);
    expect(still.body.data.members).toHaveLength(1);
  });

  it('every route with a parameter, each parameter in turn: 404 for . and .. (raw and encoded)', async () => {
    const routes = routePatterns(t.app).filter(([, path]) => /[:*]/.test(path));
    expect(routes.length).toBeGreaterThan(15);
    let sent = 0;
    for (const [method, pattern] of routes) {
      const names = [...pattern.matchAll(/:([A-Za-z0-9_]+)|\*/g)].map((match) => match[0]);
      for (const name of names) {
        for (const dots of ['..', '%2e%2e', '.']) {
          let filled = pattern.replace(name, dots);
          filled = filled
            .replace(/:file/, 'swagger-ui.css')
            .replace(/:[A-Za-z0-9_]+/g, '1')
            .replace('*', 'x');
          const response = await raw(port, method, filled, asOwner());
          sent += 1;
          expect(response.status, `${method} ${filled} (${pattern}): ${response.body.slice(0, 200)}`).toBe(
            404,
          );
        }
      }
    }
    expect(sent).toBeGreaterThan(45);
  });
});
