import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi } from '../../src/index.ts';
import { blogApi } from '../../examples/blog/api.ts';
import { blogMigrations } from '../../examples/blog/migrations.ts';
import { blogPlugins } from '../../examples/blog/citadel.config.ts';
import { startApiApp, type ApiApp } from '../support/api-app.ts';
import { LiveStream } from '../support/live.ts';
import { elevate } from '../support/sudo.ts';
import type { TestClient } from '../support/client.ts';
import { createOrganization } from '../auth/organizations/fixture.ts';

// Live streams and who may hold them: token abilities, organizations, revocation, limits,
// heartbeats, slow consumers and shutdown, on the demo's posts and projects with small limits.

const api = createApi({
  apiName: 'Live limits',
  resources: blogApi.resources,
  live: { heartbeatSeconds: 1, maxStreamsPerUser: 3, maxStreamsPerProcess: 8, bufferBytes: 16_384 },
}).publish({ version: 'v1' });

let t: ApiApp;
let base: string;
const open: LiveStream[] = [];

async function live(path: string, headers: Record<string, string> = {}): Promise<LiveStream> {
  const stream = await LiveStream.open(`${base}${path}`, headers);
  open.push(stream);
  if (stream.response.ok) await stream.until(() => stream.lastEventId !== undefined, 5000, 'the position');
  return stream;
}

function closeAll(): void {
  for (const stream of open.splice(0)) stream.close();
}

const cookieOf = (client: TestClient) => ({ cookie: `citadel_session=${client.cookie('citadel_session')}` });
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** The status of a live request (the stream, if any, closed at once). */
async function status(path: string, headers: Record<string, string> = {}): Promise<number> {
  const stream = await LiveStream.open(`${base}${path}`, headers);
  stream.close();
  return stream.response.status;
}

async function signedIn(): Promise<TestClient> {
  return t.signIn(await t.createUser());
}

async function token(
  client: TestClient,
  abilities: string[],
  organizationId?: number,
): Promise<{ token: string; id: number }> {
  await elevate(client);
  const created = await client.post('/tokens', {
    name: `t${Math.random()}`,
    abilities,
    ...(organizationId ? { organization_id: organizationId } : {}),
  });
  expect(created.status, created.text).toBe(201);
  return { token: created.body.token as string, id: created.body.token_id as number };
}

/** Wait until no stream of this process is open any more (the server saw every client leave). */
async function settle(): Promise<void> {
  const deadline = Date.now() + 3000;
  while (Date.now() < deadline) {
    const free = await LiveStream.open(`${base}/api/v1/posts/live`);
    free.close();
    if (free.response.status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

beforeAll(async () => {
  t = await startApiApp(api, blogMigrations, { plugins: blogPlugins });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
});

afterAll(async () => {
  closeAll();
  await t.close();
});

describe('live streams: callers', () => {
  it('a token without posts:read reads as an anonymous caller; with it, as its user', async () => {
    const author = await signedIn();
    const withAbility = await token(author, ['posts:read']);
    const withoutAbility = await token(author, ['comments:read']);
    const reader = await live('/api/v1/posts/live', bearer(withAbility.token));
    const stranger = await live('/api/v1/posts/live', bearer(withoutAbility.token));
    const draft = await author.post('/api/v1/posts', { title: 'Token draft', body: 'x', status: 'draft' });
    const published = await author.post('/api/v1/posts', {
      title: 'Token post',
      body: 'x',
      status: 'published',
    });
    expect((await reader.changesCount(2)).map((e) => e.data.id)).toEqual([
      draft.body.data.id,
      published.body.data.id,
    ]);
    expect((await stranger.changesCount(1)).map((e) => e.data.id)).toEqual([published.body.data.id]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(stranger.changes()).toHaveLength(1);
    closeAll();
  });

  it('a tenant-scoped resource: each organization sees its own rows; no caller 401, no organization 403', async () => {
    const alice = await signedIn();
    const bob = await signedIn();
    const alpha = await createOrganization(alice, 'Alpha');
    const beta = await createOrganization(bob, 'Beta');
    expect(await status('/api/v1/projects/live')).toBe(401);
    const loner = await signedIn();
    expect(await status('/api/v1/projects/live', cookieOf(loner))).toBe(403);

    // A token bound to Beta without projects:read: 403; with it, Beta's rows. (Made first: sudo
    // renews the session, which ends the streams of the session it replaces.)
    const bobsReader = await token(bob, ['projects:read'], beta);
    const bobsWriter = await token(bob, ['projects:create'], beta);
    const inAlpha = await live('/api/v1/projects/live', cookieOf(alice));
    const inBeta = await live('/api/v1/projects/live', cookieOf(bob));
    expect(await status('/api/v1/projects/live', bearer(bobsWriter.token))).toBe(403);
    const viaToken = await live('/api/v1/projects/live', bearer(bobsReader.token));

    const a = await alice.post('/api/v1/projects', { name: 'Alpha project' });
    const b = await bob.post('/api/v1/projects', { name: 'Beta project' });
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect((await inAlpha.changesCount(1)).map((e) => e.data.id)).toEqual([a.body.data.id]);
    expect((await inBeta.changesCount(1)).map((e) => e.data.id)).toEqual([b.body.data.id]);
    expect((await viaToken.changesCount(1))[0]!.data.record).toMatchObject({ name: 'Beta project' });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(inAlpha.changes()).toHaveLength(1);
    expect(inBeta.changes()).toHaveLength(1);
    // No longer a member of Alpha: the Alpha stream ends within 5 s; Beta's goes on.
    await t.services.db.deleteFrom('organization_members').where('organization_id', '=', alpha).execute();
    await inAlpha.until(() => inAlpha.ended, 5000, 'the stream of a removed member to end');
    expect(inBeta.ended).toBe(false);
    closeAll();
  });
});

describe('live streams: ends', () => {
  it('a session signed out ends its streams within 5 s; a revoked token its own', async () => {
    const client = await signedIn();
    const pat = await token(client, ['posts:read']);
    const bySession = await live('/api/v1/posts/live', cookieOf(client));
    const byToken = await live('/api/v1/posts/live', bearer(pat.token));
    const started = Date.now();
    expect((await client.delete(`/tokens/${pat.id}`)).status).toBe(200);
    await byToken.until(() => byToken.ended, 5000, 'the token stream to end');
    expect(bySession.ended).toBe(false);
    expect((await client.post('/logout', {})).status).toBe(200);
    await bySession.until(() => bySession.ended, 5000, 'the session stream to end');
    expect(Date.now() - started).toBeLessThan(10_000);
    closeAll();
  });

  it('heartbeat comments keep the stream open', async () => {
    const stream = await live('/api/v1/posts/live');
    await stream.until(() => stream.comments.includes('heartbeat'), 3000, 'a heartbeat');
    closeAll();
  });

  it('limits: per user and per process, 429 with Retry-After', async () => {
    await settle();
    const client = await signedIn();
    const mine = await Promise.all(
      [1, 2, 3, 4].map(() => LiveStream.open(`${base}/api/v1/posts/live`, cookieOf(client))),
    );
    open.push(...mine);
    const statuses = mine.map((stream) => stream.response.status).sort();
    expect(statuses).toEqual([200, 200, 200, 429]);
    const refused = mine.find((stream) => stream.response.status === 429)!;
    expect(Number(refused.response.headers.get('retry-after'))).toBeGreaterThan(0);
    // Anonymous streams count towards the process's 8.
    const others = await Promise.all(
      [1, 2, 3, 4, 5, 6].map(() => LiveStream.open(`${base}/api/v1/posts/live`)),
    );
    open.push(...others);
    expect(others.map((stream) => stream.response.status).sort()).toEqual([200, 200, 200, 200, 200, 429]);
    // Closing one frees its slot.
    closeAll();
    await settle();
  });

  it('a client that does not read is disconnected, not buffered without bound', async () => {
    await settle();
    const author = await signedIn();
    const stream = await live('/api/v1/posts/live');
    stream.pause();
    const body = 'x'.repeat(60_000);
    for (let round = 0; round < 4; round++) {
      const created = await author.post(
        '/api/v1/posts',
        Array.from({ length: 20 }, (_, i) => ({ title: `Slow ${round}-${i}`, body, status: 'published' })),
      );
      expect(created.status).toBe(201);
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    stream.resume();
    await stream.until(() => stream.ended, 5000, 'the slow stream to be cut');
    expect(stream.changes().length).toBeLessThan(80);
    closeAll();
  });
});

describe('live streams: shutdown', () => {
  it('closes streams with a retry hint', async () => {
    const other = await startApiApp(api, blogMigrations, {
      plugins: blogPlugins,
      sharedDatabase: t.database,
    });
    await other.app.listen({ port: 0, host: '127.0.0.1' });
    const port = (other.app.server.address() as { port: number }).port;
    const stream = await LiveStream.open(`http://127.0.0.1:${port}/api/v1/posts/live`);
    await stream.until(() => stream.lastEventId !== undefined);
    await other.close();
    await stream.until(() => stream.ended, 5000, 'the stream to end');
    expect(stream.retry).toBeGreaterThan(0);
  });
});
