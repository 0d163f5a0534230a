import { once } from 'node:events';
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import {
  createApi,
  createFetchHandler,
  defaultPlugins,
  defineResource,
  organizations,
  type CallContext,
  type CitadelFetchHandler,
  type HookContext,
  type ResourceHooks,
} from '../../src/index.ts';
import { projects } from '../../examples/blog/resources/projects.ts';
import { projectsMigration } from '../../examples/blog/migrations.ts';
import { startApiApp, type ApiApp } from '../support/api-app.ts';
import { TEST_SECRET } from '../support/app.ts';
import { createOrganization, DEMO_ROLES } from '../auth/organizations/fixture.ts';

// What each hook saw, in order, for the request in flight.
let seen: { hook: string; request: CallContext }[] = [];
const record = (hook: string) => (ctx: HookContext) => void seen.push({ hook, request: ctx.request });

const probed = defineResource({
  ...projects,
  hooks: {
    beforeQuery: (query, ctx) => {
      record('beforeQuery')(ctx);
      return query;
    },
    afterQuery: (records, ctx) => void record('afterQuery')(ctx),
    beforeSave: (data, ctx) => void record('beforeSave')(ctx),
    afterSave: (saved, ctx) => void record('afterSave')(ctx),
  },
});

const api = createApi({ apiName: 'Hook context', apiBaseUrl: '/api', resources: [probed] }).publish({
  version: 'v1',
});
const plugins = [...defaultPlugins(), organizations({ roles: DEMO_ROLES })];

/** One request as every host receives it: method, path, headers (a bearer token made for the organization). */
interface Call {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  body?: unknown;
}

/** What the hooks of one request saw, the same shape whatever the host. */
function observed(): unknown[] {
  const first = seen[0]?.request;
  return seen.map(({ hook, request }) => ({
    hook,
    // Every hook of a request receives the one context built for it.
    same: request === first,
    keys: Object.keys(request).sort(),
    caller: request.caller?.user.id ?? null,
    via: request.caller?.via ?? null,
    ip: request.ip,
    userAgent: request.userAgent,
    probe: request.headers['x-probe'],
    organization: request.organization,
  }));
}

describe('resource hooks receive the same request context under every host', () => {
  let t: ApiApp;
  let node: Server;
  let nodeUrl: string;
  let fetchHandler: CitadelFetchHandler;
  let token: string;
  let organizationId: number;
  let userId: number;

  beforeAll(async () => {
    t = await startApiApp(api, [projectsMigration], { plugins });
    const alice = await t.createUser({ username: 'hook-alice' });
    userId = alice.id;
    // Alice creates it (she is its owner); the token acts in it.
    organizationId = await createOrganization(await t.signIn(alice), 'Hooks');
    token = (
      await t.services.tokens.issue({
        userId: alice.id,
        name: 'hooks',
        abilities: ['projects:*'],
        expiresAt: null,
        organizationId,
      })
    ).token;
    node = createHttpServer(t.server.handler);
    node.listen(0, '127.0.0.1');
    await once(node, 'listening');
    nodeUrl = `http://127.0.0.1:${(node.address() as AddressInfo).port}`;
    fetchHandler = createFetchHandler({
      env: {},
      logger: false,
      seedDemo: false,
      databaseUrl: t.database.url,
      sessionSecret: TEST_SECRET,
      smtpUrl: t.mail.url,
      appUrl: 'http://localhost:3000',
      dataDir: '/tmp/citadel-test-data',
      api,
      migrations: [projectsMigration],
      plugins,
    });
    await fetchHandler.ready();
  });
  afterAll(async () => {
    await fetchHandler?.close();
    if (node) {
      node.close();
      await once(node, 'close');
    }
    await t?.close();
  });

  const hosts: Record<string, (call: Call) => Promise<number>> = {
    fastify: async ({ method, url, headers, body }) =>
      (
        await t.app.inject({
          method,
          url,
          headers,
          remoteAddress: '127.0.0.1',
          ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
        })
      ).statusCode,
    node: async ({ method, url, headers, body }) =>
      (
        await fetch(`${nodeUrl}${url}`, {
          method,
          headers,
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        })
      ).status,
    fetch: async ({ method, url, headers, body }) =>
      (
        await fetchHandler(
          new Request(`http://localhost${url}`, {
            method,
            headers,
            ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          }),
          { clientAddress: '127.0.0.1' },
        )
      ).status,
  };

  async function through(host: string, call: Call): Promise<unknown[]> {
    seen = [];
    const status = await hosts[host]!(call);
    expect(status, `${host} ${call.method} ${call.url}`).toBeLessThan(300);
    return observed();
  }

  it('a list, a single read and a create: identical records under Fastify, the Node handler and the Fetch handler', async () => {
    const headers = {
      authorization: `Bearer ${token}`,
      accept: 'application/json',
      'user-agent': 'probe-agent/1.0',
      'x-probe': 'probe-value',
    };
    const calls = async (host: string) => {
      const created = await through(host, {
        method: 'POST',
        url: '/api/v1/projects',
        headers: { ...headers, 'content-type': 'application/json' },
        body: { name: `from ${host}` },
      });
      const list = await through(host, { method: 'GET', url: '/api/v1/projects', headers });
      return { created, list };
    };
    const byHost = {
      fastify: await calls('fastify'),
      node: await calls('node'),
      fetch: await calls('fetch'),
    };
    const expected = {
      same: true,
      keys: ['caller', 'headers', 'ip', 'organization', 'userAgent'],
      caller: userId,
      via: 'token',
      ip: '127.0.0.1',
      userAgent: 'probe-agent/1.0',
      probe: 'probe-value',
      organization: { id: organizationId, role: 'owner', permissions: expect.any(Array) },
    };
    expect(byHost.fastify.list).toEqual([
      { hook: 'beforeQuery', ...expected },
      { hook: 'afterQuery', ...expected },
    ]);
    expect(byHost.fastify.created.map((entry) => (entry as { hook: string }).hook)).toEqual([
      'beforeSave',
      'afterSave',
    ]);
    for (const entry of byHost.fastify.created) expect(entry).toMatchObject(expected);
    expect(byHost.node).toEqual(byHost.fastify);
    expect(byHost.fetch).toEqual(byHost.fastify);
  });

  it("a hook's context is plain data: no member of Fastify's request", () => {
    type Request = Parameters<NonNullable<ResourceHooks['afterQuery']>>[1]['request'];
    expectTypeOf<keyof Request>().toEqualTypeOf<'caller' | 'ip' | 'userAgent' | 'headers' | 'organization'>();
    expectTypeOf<Request>().not.toHaveProperty('server');
    expectTypeOf<Request>().not.toHaveProperty('raw');
    expectTypeOf<Request>().not.toHaveProperty('log');
    expectTypeOf<Request>().not.toHaveProperty('body');
    expectTypeOf<HookContext['request']>().toEqualTypeOf<CallContext>();
  });
});
