// citadel/client's live() in Node against a real server (loopback) on the run's database: the
// demo's posts as an anonymous reader sees them (created, updated, deleted when a post goes back to
// draft), resuming with lastEventId, reset for a position the server never had, reconnecting
// through a dropped connection (a TCP proxy cut), and the end of a stream whose token is revoked.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type LiveStream } from '../../src/client/index.ts';
import { startListeningTestApp } from '../support/browser.ts';
import type { TestApp } from '../support/app.ts';
import { TcpProxy } from '../support/tcp-proxy.ts';
import { blogApi } from '../../examples/blog/api.ts';
import { blogMigrations } from '../../examples/blog/migrations.ts';
import type demoConfig from '../../examples/blog/citadel.config.ts';

let t: TestApp;
let base: string;
let authorToken: string;

beforeAll(async () => {
  ({ t, base } = await startListeningTestApp({ api: blogApi, migrations: blogMigrations }));
  const author = await t.createUser({ username: 'live-author' });
  const issued = await t.services.tokens.issue({
    userId: author.id,
    name: 'live test',
    abilities: ['*'],
    expiresAt: null,
  });
  authorToken = issued.token;
}, 60_000);
/** Every stream the tests open, closed before the server (a test that fails midway leaves some). */
const opened: { close(): void }[] = [];
afterAll(async () => {
  for (const stream of opened) stream.close();
  await t?.close();
}, 120_000);

/** A client whose live streams are tracked for afterAll. */
function clientAt(baseUrl: string, token?: string) {
  const client = createClient<typeof demoConfig>({
    baseUrl,
    apiBaseUrl: '/api',
    ...(token ? { token } : {}),
  });
  const posts = client.api.v1.posts;
  const live: typeof posts.live = (query, options) => {
    const stream = posts.live(query, options);
    opened.push(stream);
    return stream;
  };
  return { api: { v1: { posts: { ...posts, live, create: posts.create, update: posts.update } } } };
}

/** The next event, or a failure after `ms` (a stream that says nothing is a failed test, not a hang). */
async function next<E>(stream: LiveStream<E>, ms = 10_000): Promise<E> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no event within ${ms} ms`)), ms);
  });
  try {
    const result = await Promise.race([stream.next(), timeout]);
    if (result.done) throw new Error(`the stream ended (${stream.error?.status ?? 'no error'})`);
    return result.value;
  } finally {
    clearTimeout(timer);
  }
}

/** Wait until the stream is in the feed: the server's position block has been read. */
async function joined(stream: LiveStream<unknown>): Promise<void> {
  // The first next() opens the connection; the position block moves lastEventId without an event.
  for (let i = 0; i < 300 && stream.lastEventId === ''; i += 1)
    await new Promise((resolve) => setTimeout(resolve, 50));
}

async function publish(title: string): Promise<string> {
  const made = await clientAt(base, authorToken).api.v1.posts.create({
    title,
    body: `${title}.`,
    status: 'published',
  });
  if (made.error) throw new Error(made.error.message);
  return made.data.id;
}

describe('client live() against the server', () => {
  it('an anonymous reader sees created, updated and deleted (a post back to draft) in commit order', async () => {
    const author = clientAt(base, authorToken);
    const stream = clientAt(base).api.v1.posts.live({ fields: ['title'] });
    const first = stream.next();
    await joined(stream);
    const id = await publish('Live one');
    await author.api.v1.posts.update(id, { title: 'Live one, edited' });
    // A draft of the author's: the anonymous reader never sees it.
    await author.api.v1.posts.create({ title: 'Hidden draft', body: 'Not yet.' });
    await author.api.v1.posts.update(id, { status: 'draft' });
    const events = [(await first).value!, await next(stream), await next(stream)];
    expect(events.map((event) => [event.type, event.data.id])).toEqual([
      ['created', id],
      ['updated', id],
      ['deleted', id],
    ]);
    expect(events[0]!.type === 'created' && events[0]!.data.record).toEqual({ id, title: 'Live one' });
    expect(events[1]!.type === 'updated' && events[1]!.data.record).toEqual({
      id,
      title: 'Live one, edited',
    });
    expect('record' in events[2]!.data).toBe(false);
    expect(Number(events[2]!.id)).toBeGreaterThan(Number(events[0]!.id));
    await stream.return!();
  });

  it('resumes from lastEventId: the events missed meanwhile, in order; an unknown position gets reset', async () => {
    const stream = clientAt(base).api.v1.posts.live({ fields: ['title'] });
    const pending = stream.next();
    await joined(stream);
    await publish('Before the gap');
    const seen = (await pending).value!;
    stream.close();
    const missed = [await publish('Missed one'), await publish('Missed two')];
    const resumed = clientAt(base).api.v1.posts.live({ fields: ['title'] }, { lastEventId: seen.id });
    expect([(await next(resumed)).data.id, (await next(resumed)).data.id]).toEqual(missed);
    resumed.close();

    const lost = clientAt(base).api.v1.posts.live({}, { lastEventId: '999999999' });
    expect(await next(lost)).toMatchObject({ type: 'reset', data: {} });
    const after = await publish('After the reset');
    expect((await next(lost)).data.id).toBe(after);
    lost.close();
  });

  it('reconnects by itself through a dropped connection and gets what was written meanwhile', async () => {
    const proxy = await new TcpProxy('127.0.0.1', Number(new URL(base).port)).start();
    try {
      const stream = clientAt(`http://127.0.0.1:${proxy.port}`).api.v1.posts.live({ fields: ['title'] });
      const pending = stream.next();
      await joined(stream);
      const first = await publish('Before the cut');
      expect((await pending).value!.data.id).toBe(first);
      proxy.cut();
      const during = await publish('During the cut');
      setTimeout(() => proxy.restore(), 300);
      expect((await next(stream, 15_000)).data.id).toBe(during);
      stream.close();
    } finally {
      await proxy.stop();
    }
  });

  it("waits out the server's 429 (the user's 10 streams) and connects once a stream is free", async () => {
    const user = await t.createUser({ username: 'live-many' });
    const { token } = await t.services.tokens.issue({
      userId: user.id,
      name: 'many',
      abilities: ['*'],
      expiresAt: null,
    });
    const client = clientAt(base, token);
    const open = Array.from({ length: 10 }, () => client.api.v1.posts.live({ fields: ['title'] }));
    const pending = open.map((stream) => stream.next());
    for (const stream of open) await joined(stream);
    const eleventh = client.api.v1.posts.live({ fields: ['title'] });
    const waiting = eleventh.next();
    // Refused with Retry-After: 5; the client waits, meanwhile one stream closes.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(eleventh.lastEventId).toBe('');
    expect(eleventh.error).toBeNull();
    open[0]!.close();
    await pending[0];
    await joined(eleventh);
    expect(eleventh.lastEventId).not.toBe('');
    const id = await publish('For the eleventh');
    expect((await waiting).value!.data.id).toBe(id);
    for (const stream of [...open, eleventh]) stream.close();
  }, 30_000);

  it("ends a token's stream when the token is revoked: the reconnection is refused (401) and the loop ends", async () => {
    const author = await t.createUser({ username: 'live-revoked' });
    const { token, record } = await t.services.tokens.issue({
      userId: author.id,
      name: 'short',
      abilities: ['*'],
      expiresAt: null,
    });
    const stream = clientAt(base, token).api.v1.posts.live({ fields: ['title'] });
    const pending = stream.next();
    await joined(stream);
    await t.services.tokens.revoke(author.id, record.id);
    const started = Date.now();
    expect(await Promise.race([pending, new Promise((r) => setTimeout(() => r('hung'), 15_000))])).toEqual({
      done: true,
      value: undefined,
    });
    expect(Date.now() - started).toBeLessThan(8000);
    expect(stream.error?.status).toBe(401);
  });
});
