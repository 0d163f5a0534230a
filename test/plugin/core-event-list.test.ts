/**
 * The core serves a user's security events list (`GET /account/events`) whatever plugins are
 * present: without the account center a signed-in user still lists the events the core records
 * (sign-in, sign-out), in the same envelope; with it, the account center serves the same
 * declaration with its page. Either way the list shows only the types of the plugins present,
 * each sign-in is one `sign_in` row (the account center adds its device facts to it), and the
 * core's retention sweep deletes old events.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { defaultPlugins, type CitadelPlugin, type DefaultPluginOverrides } from '../../src/index.ts';
import { startTestApp, TEST_PASSWORD, type TestApp } from '../support/app.ts';
import { withDependents } from '../support/plugins.ts';
import type { TestClient } from '../support/client.ts';
import { eventTypes, FIREFOX_LINUX, storedEvents } from '../support/security-events.ts';
import { recordSecurityEvent } from '../../src/plugin-api.ts';

const EVENT_KEYS = ['created_at', 'detail', 'id', 'ip', 'label', 'type', 'user_agent'];

const withoutAccountCenter = (): CitadelPlugin[] =>
  defaultPlugins(
    Object.fromEntries(withDependents('accountCenter').map((key) => [key, false])) as DefaultPluginOverrides,
  );

/**
 * A user who signed in, out, failed a sign-in and signed in again (the core records each of
 * these), and that last session's client.
 */
async function signedInAgain(t: TestApp): Promise<{ id: number; client: TestClient }> {
  const user = await t.createUser();
  const first = await t.signIn(user);
  t.clock.advance(1);
  expect((await first.post('/logout', {})).status).toBe(200);
  t.clock.advance(1);
  const wrong = await t.client().post('/login', { email: user.email, password: 'not the password at all' });
  expect(wrong.status).toBe(401);
  // The failure is written after the answer (equal timing for unknown accounts): wait for it.
  await expect.poll(() => eventTypes(t, user.id)).toContain('sign_in_failed');
  t.clock.advance(1);
  return { id: user.id, client: await t.signIn(user) };
}

/** Which tag of the auth OpenAPI document holds `GET /account/events`. */
async function eventListTags(t: TestApp): Promise<unknown> {
  const document = await t.app.inject({
    method: 'GET',
    url: '/docs',
    headers: { accept: 'application/json' },
  });
  expect(document.statusCode).toBe(200);
  return (JSON.parse(document.body) as { paths: Record<string, { get?: { tags?: string[] } }> }).paths[
    '/account/events'
  ]?.get?.tags;
}

async function routeList(t: TestApp): Promise<string[]> {
  const response = await t.client().get('/endpoints');
  return (response.body.data.endpoints as { method: string; path: string }[]).map(
    ({ method, path }) => `${method} ${path}`,
  );
}

describe('GET /account/events without the account center', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ plugins: withoutAccountCenter() });
  });
  afterAll(async () => t?.close());

  it('lists the events the core records, newest first, in the envelope and pages of the list', async () => {
    expect(t.services.authEndpointGroups.map((group) => group.name)).not.toContain('account-center');
    const { id, client } = await signedInAgain(t);
    // A type no present plugin declares (the account center's) is stored but never listed.
    await t.services.db
      .insertInto('security_events')
      .values({
        user_id: id,
        type: 'username_changed',
        ip: null,
        user_agent: null,
        detail: '{}',
        created_at: t.clock.now().toISOString(),
      })
      .execute();

    const response = await client.get('/account/events');
    expect(response.status, response.text).toBe(200);
    expect(response.body).toMatchObject({ action: 'events.index', status: 'success' });
    const events = response.body.data.events as { type: string; label: string }[];
    expect(events.map((event) => event.type)).toEqual(['sign_in', 'sign_in_failed', 'sign_out', 'sign_in']);
    expect(events.map((event) => event.label)).toEqual([
      'Signed in',
      'Failed sign-in',
      'Signed out',
      'Signed in',
    ]);
    expect(Object.keys(events[0]!).sort()).toEqual(EVENT_KEYS);
    expect(response.body.data.pagination).toMatchObject({ page: 1, limit: 20, total: 4, hasMore: false });

    const second = await client.get('/account/events?limit=1&page=2');
    expect(second.body.data.events.map((event: { type: string }) => event.type)).toEqual(['sign_in_failed']);
    expect(second.body.data.pagination).toMatchObject({ page: 2, limit: 1, total: 4, prevPage: 1 });
    expect((await client.get('/account/events?page=0')).status).toBe(422);
    expect((await t.client().get('/account/events')).status).toBe(401);
  });

  it('records each sign-in once, with its address, browser and method', async () => {
    const user = await t.createUser();
    const login = await t.client().post('/login', { email: user.email, password: TEST_PASSWORD }, 'json', {
      headers: { 'user-agent': FIREFOX_LINUX },
    });
    expect(login.status, login.text).toBe(200);
    const signIns = (await storedEvents(t, user.id)).filter((event) => event.type === 'sign_in');
    expect(signIns).toHaveLength(1);
    expect(signIns[0]).toMatchObject({ user_agent: FIREFOX_LINUX, ip: expect.any(String) });
    expect(signIns[0]!.detail).toEqual({ device: 'Firefox on Linux', method: 'sign_in', remembered: false });
  });

  it('form clients are sent home (no page without the account center); the core documents the endpoint', async () => {
    const { client } = await signedInAgain(t);
    const form = await client.get('/account/events', 'form');
    expect(form.status).toBe(303);
    expect(form.headers.location).toBe('/');
    expect(await routeList(t)).toContain('GET /account/events');
    expect(await eventListTags(t)).toEqual(['security-events']);
  });
});

describe('GET /account/events with the account center', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t?.close());

  it('is served once, by the account center with its page, in the same envelope', async () => {
    const groups = t.services.authEndpointGroups;
    expect(groups.map((group) => group.name)).not.toContain('security-events');
    const served = t.services.authEndpoints.filter((endpoint) => endpoint.path === '/account/events');
    expect(served).toHaveLength(1);
    expect(served[0]!.page).toBeDefined();
    const { client } = await signedInAgain(t);
    const response = await client.get('/account/events');
    expect(response.status, response.text).toBe(200);
    expect(response.body.data.events.map((event: { type: string }) => event.type)).toEqual([
      'sign_in',
      'sign_in_failed',
      'sign_out',
      'sign_in',
    ]);
    expect(Object.keys(response.body.data.events[0]).sort()).toEqual(EVENT_KEYS);
    // One row per sign-in: the core's, with the account center's device fact in its detail.
    const signIns = response.body.data.events.filter((event: { type: string }) => event.type === 'sign_in');
    for (const event of signIns)
      expect(event.detail).toMatchObject({
        method: 'sign_in',
        remembered: false,
        new_device: expect.any(Boolean),
      });
    const page = await client.get('/account/events', 'form');
    expect(page.status).toBe(200);
    expect(page.text).toContain('Signed out');
    expect(await routeList(t)).toContain('GET /account/events');
    expect(await eventListTags(t)).toEqual(['account-center']);
  });
});

describe('the retention sweep without the account center', () => {
  let t: TestApp;
  beforeAll(async () => {
    // The sweep runs at start and every 6 hours: its timer is driven by hand.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    t = await startTestApp({ plugins: withoutAccountCenter(), eventRetentionDays: 30 });
  });
  afterAll(async () => {
    await t?.close();
    vi.useRealTimers();
  });

  it('deletes events older than eventRetentionDays, every 6 hours', async () => {
    expect(t.services.config.eventRetentionDays).toBe(30);
    const user = await t.createUser();
    const day = 24 * 60 * 60 * 1000;
    const now = t.clock.now().getTime();
    for (const age of [31, 29])
      await recordSecurityEvent(t.services.db, t.clock, {
        userId: user.id,
        type: age > 30 ? 'sign_out' : 'password_changed',
        at: new Date(now - age * day),
      });
    expect(await eventTypes(t, user.id)).toEqual(['sign_out', 'password_changed']);
    vi.advanceTimersByTime(6 * 60 * 60 * 1000);
    await expect.poll(() => eventTypes(t, user.id)).toEqual(['password_changed']);
  });
});
