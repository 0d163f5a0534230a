import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Type } from '@sinclair/typebox';
import { defineEndpoint, definePlugin, Envelope, type CitadelPlugin } from '../../src/index.ts';
import { blogPlugins } from '../../examples/blog/citadel.config.ts';
import { startBlogApp, type BlogApp } from '../support/api-app.ts';
import { startTestApp } from '../support/app.ts';

/**
 * A plugin brings `rateLimits`, rules for routes whatever declares them: another plugin's
 * endpoints, its own, the resource API. A matching request counts
 * before the route's own rules and before validation; the rest of the server pays nothing.
 */
const limits = definePlugin({
  id: 'limits',
  endpoints: ['/limited/ping', '/unlimited/ping'].map((path) =>
    defineEndpoint({
      method: 'GET',
      path,
      action: 'ping',
      auth: 'optional',
      responses: { 200: Envelope({ data: Type.Object({ pong: Type.Boolean() }) }) },
      async handler() {
        return { status: 'success', data: { pong: true } };
      },
    }),
  ),
  rateLimits: [
    // Another plugin's declared endpoint, POST only (the sign-in page stays free).
    { name: 'app:login', path: '/login', method: 'POST', max: 3, windowSeconds: 60 },
    // The resource API, per signed-in user (anonymous callers by address).
    { name: 'app:posts', path: '/api/v1/posts', method: 'GET', max: 2, windowSeconds: 60, per: 'user' },
    // Its own endpoints, by a test on the path.
    { name: 'app:limited', path: (path) => path.startsWith('/limited/'), max: 1, windowSeconds: 30 },
  ],
});

describe('a plugin’s rateLimits', () => {
  let t: BlogApp;
  beforeAll(async () => {
    t = await startBlogApp({ plugins: [...blogPlugins, limits] });
  });
  afterAll(async () => t?.close());

  it('limits another plugin’s endpoint, counting invalid requests too, at most max of many parallel requests', async () => {
    await t.createUser({ email: 'rl@example.com', username: 'rl' });
    const client = t.client();
    const bodies = [
      {},
      { email: 'rl@example.com', password: 'wrong password' },
      { email: 'nobody@example.com', password: 'x' },
    ];
    const answers = await Promise.all(
      Array.from({ length: 9 }, (_, i) => client.post('/login', bodies[i % bodies.length]!)),
    );
    const statuses = answers.map((answer) => answer.status);
    // Exactly three were counted in; the other six were refused before their handler ran.
    expect(statuses.filter((status) => status !== 429)).toHaveLength(3);
    expect(statuses.filter((status) => status === 429)).toHaveLength(6);
    const refused = answers.find((answer) => answer.status === 429)!;
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.body.action).toBe('login.attempt');
    // The page (GET) is not counted by a POST rule.
    expect((await client.get('/login', 'form')).status).toBe(200);
    // The window ends: counted again.
    t.clock.advance(61);
    expect((await client.post('/login', bodies[1]!)).status).toBe(401);
  });

  it('limits a resource API route per user, as a problem answer, and only that route', async () => {
    t.clock.advance(61); // the sign-ins below are counted by the login rule
    const alice = await t.createUser({ email: 'alice-rl@example.com', username: 'alicerl' });
    const client = await t.signIn(alice);
    expect((await client.get('/api/v1/posts')).status).toBe(200);
    expect((await client.get('/api/v1/posts')).status).toBe(200);
    const third = await client.get('/api/v1/posts');
    expect(third.status).toBe(429);
    expect(third.headers['content-type']).toMatch(/json/);
    expect(third.text).not.toMatch(/stack|at \//);
    // Another user has a counter of their own; other routes are not limited.
    const bob = await t.createUser({ email: 'bob-rl@example.com', username: 'bobrl' });
    expect((await (await t.signIn(bob)).get('/api/v1/posts')).status).toBe(200);
    expect((await client.get('/api/v1/comments')).status).toBe(200);
  });

  it('limits the plugin’s own endpoints matched by a test on the path', async () => {
    const client = t.client();
    expect((await client.get('/limited/ping')).status).toBe(200);
    expect((await client.get('/limited/ping')).status).toBe(429);
    for (let i = 0; i < 5; i += 1) expect((await client.get('/unlimited/ping')).status).toBe(200);
  });

  it('two plugins naming the same rule stop start-up with one line naming both', async () => {
    const twin: CitadelPlugin = definePlugin({
      id: 'twin',
      rateLimits: [{ name: 'app:login', path: '/logout', max: 1, windowSeconds: 60 }],
    });
    await expect(startTestApp({ plugins: [...blogPlugins, limits, twin] })).rejects.toThrow(
      'plugins "limits" and "twin" both name a rate limit "app:login"',
    );
  });
});
