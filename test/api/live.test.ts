import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBlogApp, publicId, type BlogApp } from '../support/api-app.ts';
import { LiveStream } from '../support/live.ts';
import type { TestClient } from '../support/client.ts';
import type { UserRecord } from '../../src/auth/core/users.ts';

// GET /api/{v}/posts/live read over real HTTP with an independent SSE parser: who sees which change,
// in which order, resumption and reset, rolled-back writes, headers.

let t: BlogApp;
let base: string;
let alice: UserRecord;
let bob: UserRecord;
let aliceClient: TestClient;
let bobClient: TestClient;
const open: LiveStream[] = [];

function cookieOf(client: TestClient): Record<string, string> {
  return { cookie: `citadel_session=${client.cookie('citadel_session')}` };
}

async function live(path = '/api/v1/posts/live', headers: Record<string, string> = {}): Promise<LiveStream> {
  const stream = await LiveStream.open(`${base}${path}`, headers);
  open.push(stream);
  // Joined once the id-only block that tells the position arrived.
  if (stream.response.ok) await stream.until(() => stream.lastEventId !== undefined, 5000, 'the position');
  return stream;
}

async function createPost(client: TestClient, body: Record<string, unknown>) {
  const response = await client.post('/api/v1/posts', { title: 'A title', body: 'Some body', ...body });
  expect(response.status, response.text).toBe(201);
  return response.body.data as { id: string };
}

beforeAll(async () => {
  t = await startBlogApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const address = t.app.server.address();
  base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  alice = await t.createUser();
  bob = await t.createUser();
  aliceClient = await t.signIn(alice);
  bobClient = await t.signIn(bob);
});

afterAll(async () => {
  for (const stream of open) stream.close();
  await t.close();
});

describe('live posts', () => {
  it('answers text/event-stream, no-cache, with the list authentication and query checks', async () => {
    const stream = await live();
    expect(stream.response.status).toBe(200);
    expect(stream.response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(stream.response.headers.get('cache-control')).toBe('no-cache');
    const bad = await fetch(`${base}/api/v1/posts/live?page=2`);
    expect(bad.status).toBe(400);
    const badToken = await fetch(`${base}/api/v1/posts/live`, { headers: { authorization: 'Bearer nope' } });
    expect(badToken.status).toBe(401);
  });

  it('sends each caller only the changes it could list, in commit order', async () => {
    const anonymous = await live();
    const asAlice = await live('/api/v1/posts/live', cookieOf(aliceClient));
    const asBob = await live('/api/v1/posts/live', cookieOf(bobClient));

    const draft = await createPost(aliceClient, { status: 'draft', title: 'Draft of Alice' });
    const published = await createPost(aliceClient, { status: 'published', title: 'Public one' });

    const aliceSees = await asAlice.changesCount(2);
    expect(aliceSees.map((e) => [e.type, e.data.id])).toEqual([
      ['created', draft.id],
      ['created', published.id],
    ]);
    expect(aliceSees[0]!.data.record).toMatchObject({
      id: draft.id,
      title: 'Draft of Alice',
      status: 'draft',
    });
    // The list's JSON shape: hidden columns stay out, afterQuery's computed field is there.
    expect(aliceSees[0]!.data.record).not.toHaveProperty('author_id');
    expect(aliceSees[0]!.data.record).toHaveProperty('excerpt', 'Some body');

    const anonymousSees = await anonymous.changesCount(1);
    const bobSees = await asBob.changesCount(1);
    for (const sees of [anonymousSees, bobSees]) {
      expect(sees.map((e) => [e.type, e.data.id])).toEqual([['created', published.id]]);
    }
    // Ids grow in commit order.
    expect(Number(aliceSees[1]!.id)).toBeGreaterThan(Number(aliceSees[0]!.id));

    // Publishing the draft: it enters the others' view (created), an update for its author.
    const patched = await aliceClient.patch(`/api/v1/posts/${draft.id}`, { status: 'published' });
    expect(patched.status).toBe(200);
    expect((await asAlice.changesCount(3))[2]).toMatchObject({ type: 'updated', data: { id: draft.id } });
    expect((await anonymous.changesCount(2))[1]).toMatchObject({
      type: 'created',
      data: { id: draft.id, record: { status: 'published' } },
    });
    // Back to draft: it leaves their view (deleted, without the record).
    await aliceClient.patch(`/api/v1/posts/${draft.id}`, { status: 'draft' });
    const left = (await asBob.changesCount(3))[2]!;
    expect(left).toEqual({ id: left.id, type: 'deleted', data: { id: draft.id } });
    // Edited while a draft: nothing for those who cannot see it.
    await aliceClient.patch(`/api/v1/posts/${draft.id}`, { title: 'Draft, edited' });
    await aliceClient.delete(`/api/v1/posts/${published.id}`);
    expect((await asAlice.changesCount(6)).slice(3).map((e) => e.type)).toEqual([
      'updated',
      'updated',
      'deleted',
    ]);
    const last = (await asBob.changesCount(4))[3]!;
    expect(last).toEqual({ id: last.id, type: 'deleted', data: { id: published.id } });
    expect(asBob.changes()).toHaveLength(4);
    expect((await anonymous.changesCount(4)).map((e) => e.type)).toEqual([
      'created',
      'created',
      'deleted',
      'deleted',
    ]);
  });

  it('applies the filter and fields of the list', async () => {
    const stream = await live('/api/v1/posts/live?filter[pinned][eq]=true&fields=title');
    expect(stream.response.status).toBe(200);
    await createPost(aliceClient, { status: 'published', title: 'Not this one' });
    const wanted = await createPost(aliceClient, { status: 'published', title: 'Filtered in', pinned: true });
    // A filter the list refuses is refused here too.
    expect((await fetch(`${base}/api/v1/posts/live?filter[title][starts]=x`)).status).toBe(400);
    const [event] = await stream.changesCount(1);
    expect(event!.data).toEqual({ id: wanted.id, record: { id: wanted.id, title: 'Filtered in' } });
  });

  it('sends nothing for a write that was rolled back', async () => {
    const stream = await live();
    // A bulk create whose second item fails validation: nothing is written, nothing is sent.
    const failed = await aliceClient.post('/api/v1/posts', [
      { title: 'First of a bulk', body: 'x', status: 'published' },
      { title: 'x', body: '' },
    ]);
    expect(failed.status).toBe(422);
    const after = await createPost(aliceClient, { status: 'published', title: 'After the failure' });
    const events = await stream.changesCount(1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(stream.changes().map((e) => e.data.id)).toEqual([after.id]);
    expect(events).toHaveLength(1);
  });

  it('sends nothing for a write rolled back inside its transaction', async () => {
    const stream = await live('/api/v1/posts/live', cookieOf(aliceClient));
    const mine = await createPost(aliceClient, { status: 'published', title: 'Will not change' });
    const other = await createPost(bobClient, { status: 'published', title: 'Bob owns this' });
    const comment = await t.client().post('/api/v1/comments', {
      post_id: other.id,
      author_name: 'Reader',
      body: 'Hello',
    });
    expect(comment.status, comment.text).toBe(201);
    // The post is updated first, then its children: a comment of another post is refused (422)
    // after the update ran, and the transaction takes the update back.
    const refused = await aliceClient.patch(`/api/v1/posts/${mine.id}`, {
      title: 'Changed, then rolled back',
      comments: [{ id: comment.body.data.id, _delete: true }],
    });
    expect(refused.status, refused.text).toBe(422);
    const marker = await createPost(aliceClient, { status: 'published', title: 'Marker after rollback' });
    await stream.until(() => stream.changes().some((e) => e.data.id === marker.id));
    expect(stream.changes().map((e) => [e.type, e.data.id])).toEqual([
      ['created', mine.id],
      ['created', other.id],
      ['created', marker.id],
    ]);
  });

  it('sends every item of a bulk create, in order', async () => {
    const stream = await live();
    const response = await aliceClient.post('/api/v1/posts', [
      { title: 'Bulk one', body: 'x', status: 'published' },
      { title: 'Bulk two', body: 'x', status: 'published' },
      { title: 'Bulk three', body: 'x', status: 'draft' },
    ]);
    expect(response.status).toBe(201);
    const ids = (response.body.data as { id: string }[]).map((record) => record.id);
    const events = await stream.changesCount(2);
    expect(events.map((e) => e.data.id)).toEqual(ids.slice(0, 2));
  });

  it('parallel writers: every commit is one event, ids consecutive in commit order', async () => {
    const stream = await live();
    const writes = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        (i % 2 ? aliceClient : bobClient).post('/api/v1/posts', {
          title: `Parallel ${i}`,
          body: 'x',
          status: 'published',
        }),
      ),
    );
    expect(writes.map((response) => response.status)).toEqual(writes.map(() => 201));
    const events = await stream.changesCount(24);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(stream.changes()).toHaveLength(24);
    const ids = events.map((event) => Number(event.id));
    expect(ids).toEqual(ids.map((_, i) => ids[0]! + i));
    expect(new Set(events.map((event) => event.data.id))).toEqual(
      new Set(writes.map((response) => (response.body.data as { id: string }).id)),
    );
  });

  it('resumes with Last-Event-ID, replaying each missed event in order', async () => {
    const first = await live();
    const position = first.lastEventId!;
    first.close();
    const a = await createPost(aliceClient, { status: 'published', title: 'Missed one' });
    const b = await createPost(aliceClient, { status: 'published', title: 'Missed two' });
    await createPost(aliceClient, { status: 'draft', title: 'Missed draft' });
    const resumed = await live('/api/v1/posts/live', { 'last-event-id': position });
    const events = await resumed.changesCount(2);
    expect(events.map((e) => [e.type, e.data.id])).toEqual([
      ['created', a.id],
      ['created', b.id],
    ]);
    // …then live events follow.
    const c = await createPost(aliceClient, { status: 'published', title: 'Live after resume' });
    expect((await resumed.changesCount(3))[2]!.data.id).toBe(c.id);
    expect(resumed.changes()).toHaveLength(3);
  });

  it('through the Fetch handler (whole answers only): what the stream has now, then a retry hint', async () => {
    const first = await t.server.fetch(new Request('http://localhost/api/v1/posts/live'));
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const opening = await first.text();
    const position = /^id: (\d+)$/m.exec(opening)![1]!;
    expect(opening).toMatch(/^retry: \d+$/m);
    const missed = await createPost(aliceClient, { status: 'published', title: 'Polled over fetch' });
    const next = await t.server.fetch(
      new Request('http://localhost/api/v1/posts/live', { headers: { 'last-event-id': position } }),
    );
    const text = await next.text();
    expect(text).toContain('event: created');
    expect(text).toContain(`"id":"${missed.id}"`);
  });

  it('answers an id it no longer holds with one reset', async () => {
    const stale = await live('/api/v1/posts/live', { 'last-event-id': '999999' });
    const [reset] = await stale.changesCount(1);
    expect(reset).toEqual({ id: reset!.id, type: 'reset', data: {} });
    const garbage = await live('/api/v1/posts/live', { 'last-event-id': 'nonsense' });
    expect((await garbage.changesCount(1))[0]!.type).toBe('reset');
    // Events swept out of the retention window: an id before them resets.
    const position = Number(stale.lastEventId);
    await createPost(aliceClient, { status: 'published', title: 'Soon swept' });
    await t.db.deleteFrom('live_changes').where('resource', '=', 'posts').execute();
    const old = await live('/api/v1/posts/live', { 'last-event-id': String(position) });
    expect((await old.changesCount(1))[0]!.type).toBe('reset');
  });

  it('is documented: text/event-stream, its parameters, statuses and event shapes', async () => {
    const doc = (await t.client().get('/api/v1/docs')).body as {
      paths: Record<string, { get: Record<string, unknown> & { parameters: { name: string }[] } }>;
    };
    const operation = doc.paths['/posts/live']!.get;
    expect(Object.keys(operation.responses as object)).toEqual(
      expect.arrayContaining(['200', '400', '401', '429', '500']),
    );
    expect(operation.responses).toHaveProperty(['200', 'content', 'text/event-stream']);
    const names = operation.parameters.map((parameter) => parameter.name);
    expect(names).toEqual(expect.arrayContaining(['Last-Event-ID', 'status', 'pinned']));
    expect(names).not.toContain('page');
    expect(Object.keys(operation['x-citadel-events'] as object).sort()).toEqual([
      'created',
      'deleted',
      'reset',
      'updated',
    ]);
  });

  it('ids the raw row never: obfuscated ids only', async () => {
    const stream = await live('/api/v1/posts/live', cookieOf(aliceClient));
    const post = await createPost(aliceClient, { status: 'published', title: 'Obfuscated' });
    const raw = await t.db
      .selectFrom('posts')
      .select('id')
      .where('title', '=', 'Obfuscated')
      .executeTakeFirstOrThrow();
    expect(post.id).toBe(publicId(t, Number(raw.id)));
    // (A reset may come first: the previous test swept events this stream's feed had not delivered.)
    await stream.until(() => stream.changes().some((e) => e.type === 'created'));
    const event = stream.changes().find((e) => e.type === 'created');
    expect(event!.data.id).toBe(post.id);
    expect(JSON.stringify(stream.events)).not.toContain(`"id":${raw.id}`);
  });
});
