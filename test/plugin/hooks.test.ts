import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Type } from '@sinclair/typebox';
import {
  defaultPlugins,
  defineEndpoint,
  definePlugin,
  Envelope,
  ForbiddenError,
  type AnyEndpoint,
} from '../../src/index.ts';
import { hookSelects } from '../../src/auth/core/plugin-hooks.ts';
import { startTestApp, type TestApp } from '../support/app.ts';

/**
 * Plugins' hooks: code before and after the endpoints a matcher selects (by path, action or
 * method), every plugin's in plugin order; a before hook refuses, an after hook adds fields.
 */
const calls: string[] = [];

const echo = defineEndpoint({
  method: 'POST',
  path: '/guarded/echo',
  action: 'guarded.echo',
  auth: 'session',
  summary: 'Echo a text',
  body: Type.Object({ text: Type.String({ maxLength: 50 }) }),
  responses: { 200: Envelope({ data: Type.Object({ text: Type.String() }) }) },
  failures: [403],
  async handler({ body }) {
    calls.push('handler');
    return { status: 'success', data: { text: body.text } };
  },
});

const plain = defineEndpoint({
  method: 'GET',
  path: '/guarded/plain',
  action: 'guarded.plain',
  auth: 'anonymous',
  summary: 'Not selected by any hook',
  responses: { 200: Envelope({ data: Type.Object({ ok: Type.Boolean() }) }) },
  async handler() {
    calls.push('plain');
    return { status: 'success', data: { ok: true } };
  },
});

const guarded = definePlugin({ id: 'guarded', endpoints: [echo, plain] });

const watch = definePlugin({
  id: 'watch',
  hooks: {
    before: [
      {
        match: { path: '/guarded/echo' },
        handler({ body, caller }) {
          calls.push(`watch.before:${caller ? 'caller' : 'none'}`);
          if ((body as { text: string }).text === 'forbidden')
            throw new ForbiddenError('Not this text.', { action: 'watch.refused' });
        },
      },
    ],
    after: [
      {
        match: { action: ['guarded.echo'] },
        schema: { data: { stamp: Type.String() } },
        handler(_input, result) {
          calls.push('watch.after');
          return { data: { stamp: `seen ${String(result.data?.text)}` } };
        },
      },
      {
        match: { action: 'me' },
        schema: { fields: { audited: Type.Boolean() } },
        handler: () => ({ fields: { audited: true } }),
      },
    ],
  },
});

const second = definePlugin({
  id: 'second',
  hooks: {
    before: [
      {
        match: { path: /^\/guarded\//, method: 'POST' },
        handler({ body }) {
          calls.push('second.before');
          // A refusal returned instead of thrown is the answer.
          if ((body as { text: string }).text === 'quiet')
            return { status: 'error', statusCode: 403, message: 'Quiet, please.' };
        },
      },
    ],
    after: [
      { match: { path: (path) => path === '/guarded/echo' }, handler: () => void calls.push('second.after') },
    ],
  },
});

describe('plugin hooks', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ plugins: [...defaultPlugins(), guarded, watch, second] });
  });
  afterAll(async () => t?.close());

  it('runs before and after hooks around a selected endpoint, in plugin order, adding fields', async () => {
    const client = await t.signIn(await t.createUser());
    calls.length = 0;
    const response = await client.post('/guarded/echo', { text: 'hello' });
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual({ text: 'hello', stamp: 'seen hello' });
    expect(calls).toEqual(['watch.before:caller', 'second.before', 'handler', 'watch.after', 'second.after']);
  });

  it('a before hook refuses by throwing (status and action) or by returning a result', async () => {
    const client = await t.signIn(await t.createUser());
    calls.length = 0;
    const thrown = await client.post('/guarded/echo', { text: 'forbidden' });
    expect(thrown.status).toBe(403);
    expect(thrown.body.action).toBe('watch.refused');
    expect(calls).toEqual(['watch.before:caller']);
    calls.length = 0;
    const returned = await client.post('/guarded/echo', { text: 'quiet' });
    expect(returned.status).toBe(403);
    expect(returned.body).toMatchObject({
      action: 'guarded.echo',
      status: 'error',
      message: 'Quiet, please.',
    });
    expect(calls).toEqual(['watch.before:caller', 'second.before']);
  });

  it('hooks run after validation and access: an invalid or anonymous request never reaches them', async () => {
    calls.length = 0;
    expect((await t.client().post('/guarded/echo', { text: 'hello' })).status).toBe(401);
    const client = await t.signIn(await t.createUser());
    expect((await client.post('/guarded/echo', {})).status).toBe(422);
    expect(calls).toEqual([]);
  });

  it('hooks run for form clients too', async () => {
    const client = await t.signIn(await t.createUser());
    calls.length = 0;
    const refused = await client.post('/guarded/echo', { text: 'forbidden' }, 'form');
    expect(refused.status).not.toBe(200);
    expect(calls).toEqual(['watch.before:caller']);
    calls.length = 0;
    await client.post('/guarded/echo', { text: 'hello' }, 'form');
    expect(calls).toEqual(['watch.before:caller', 'second.before', 'handler', 'watch.after', 'second.after']);
  });

  it('an after hook adds a declared top-level field to GET /me (schema and answer)', async () => {
    const client = await t.signIn(await t.createUser());
    const me = await client.get('/me');
    expect(me.status).toBe(200);
    expect(me.body.audited).toBe(true);
    const served = t.services.authEndpoints.find((endpoint) => endpoint.action === 'me')!;
    expect(Object.keys((served.responses[200] as { properties: object }).properties)).toContain('audited');
  });

  it('an endpoint no matcher selects is served as declared: the same object, no hook in its path', async () => {
    const served = t.services.authEndpoints.find((endpoint) => endpoint.path === '/guarded/plain');
    expect(served).toBe(plain);
    const login = t.services.authEndpoints.find((endpoint) => endpoint.action === 'login.attempt')!;
    const declared = defaultPlugins()
      .flatMap((plugin): readonly AnyEndpoint[] => plugin.endpoints ?? [])
      .find((endpoint) => endpoint.action === 'login.attempt')!;
    expect(login.handler).toBe(declared.handler);
    calls.length = 0;
    expect((await t.client().get('/guarded/plain')).body.data).toEqual({ ok: true });
    expect(calls).toEqual(['plain']);
  });

  it('a matcher selects by every criterion it gives', () => {
    const endpoint = echo as Parameters<typeof hookSelects>[1];
    expect(hookSelects({}, endpoint)).toBe(true);
    expect(hookSelects({ path: '/guarded/echo', method: 'POST' }, endpoint)).toBe(true);
    expect(hookSelects({ path: '/guarded/echo', method: 'GET' }, endpoint)).toBe(false);
    expect(hookSelects({ path: '/guarded' }, endpoint)).toBe(false);
    expect(hookSelects({ action: /^guarded\./ }, endpoint)).toBe(true);
    expect(hookSelects({ action: ['me', 'logout'] }, endpoint)).toBe(false);
    expect(hookSelects({ path: (path) => path.endsWith('/echo'), action: 'guarded.echo' }, endpoint)).toBe(
      true,
    );
    expect(hookSelects({ path: /echo/g, method: ['PUT', 'POST'] }, endpoint)).toBe(true);
  });
});
