import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, testDialect, type TestDatabase } from '../support/databases.ts';
import {
  freePort,
  PROCESS_TEST_TIMEOUT,
  redisAvailable,
  startRedis,
  startServe,
  stopProcess,
  type ServeProcess,
} from '../support/processes.ts';
import { BLOG_CONFIG } from '../support/citadel-cli.ts';
import { LiveStream } from '../support/live.ts';
import { startBlogApp, type BlogApp } from '../support/api-app.ts';
import { TEST_PASSWORD } from '../support/app.ts';

// Live changes across processes: a write committed in one process reaches the streams of every
// other (`--workers` through the primary; two servers through PostgreSQL NOTIFY, Redis pub/sub, or
// the outbox poll on MySQL without Redis).

let database: TestDatabase;
let fixtures: BlogApp;
const servers: ServeProcess[] = [];
const streams: LiveStream[] = [];
let redis: ChildProcess | undefined;

async function signIn(url: string, email: string): Promise<string> {
  const response = await fetch(`${url}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', connection: 'close' },
    body: JSON.stringify({ email, password: TEST_PASSWORD }),
  });
  expect(response.status).toBe(200);
  const cookie = response.headers.getSetCookie().find((line) => line.startsWith('citadel_session='))!;
  return cookie.split(';')[0]!;
}

async function publish(url: string, cookie: string, title: string): Promise<string> {
  const response = await fetch(`${url}/api/v1/posts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', cookie, connection: 'close' },
    body: JSON.stringify({ title, body: 'x', status: 'published' }),
  });
  expect(response.status, await response.clone().text()).toBe(201);
  return ((await response.json()) as { data: { id: string } }).data.id;
}

async function openStreams(url: string, count: number): Promise<LiveStream[]> {
  const opened: LiveStream[] = [];
  for (let i = 0; i < count; i++) {
    const stream = await LiveStream.open(`${url}/api/v1/posts/live`, { connection: 'close' });
    expect(stream.response.status).toBe(200);
    await stream.until(() => stream.lastEventId !== undefined, 10_000, 'the position');
    opened.push(stream);
  }
  streams.push(...opened);
  return opened;
}

async function serve(env: Record<string, string>, args: string[] = []): Promise<string> {
  const started = await startServe(
    { DATABASE_URL: database.url, ...env },
    ['--config', BLOG_CONFIG, ...args],
    args.includes('--workers') ? /Citadel listening on (http:\/\/127\.0\.0\.1:\d+)/ : undefined,
  );
  servers.push(started);
  return started.url;
}

beforeAll(async () => {
  database = await createTestDatabase();
  // Migrates the shared database and makes the writer's account.
  fixtures = await startBlogApp({ sharedDatabase: database });
}, PROCESS_TEST_TIMEOUT);

afterAll(async () => {
  for (const stream of streams) stream.close();
  for (const server of servers) server.child.kill('SIGKILL');
  await stopProcess(redis);
  await fixtures?.close();
  await database?.drop();
});

describe('live changes across processes', () => {
  it(
    '--workers 2: a write in one worker reaches the streams of both',
    async () => {
      const user = await fixtures.createUser();
      const url = await serve({}, ['--workers', '2']);
      // New connections each time: the primary hands them to both workers.
      const opened = await openStreams(url, 6);
      const id = await publish(url, await signIn(url, user.email), 'Across workers');
      for (const stream of opened) {
        const [event] = await stream.changesCount(1, 8000);
        expect(event).toMatchObject({ type: 'created', data: { id } });
      }
    },
    PROCESS_TEST_TIMEOUT,
  );

  it(
    'two servers on one database: a write on one reaches the other',
    async () => {
      const user = await fixtures.createUser();
      const [first, second] = [await serve({}), await serve({})];
      const onSecond = await openStreams(second!, 2);
      const id = await publish(first!, await signIn(first!, user.email), 'Across servers');
      for (const stream of onSecond) {
        const [event] = await stream.changesCount(1, 8000);
        expect(event).toMatchObject({ type: 'created', data: { id } });
      }
    },
    PROCESS_TEST_TIMEOUT,
  );

  it.runIf(testDialect() === 'postgres')(
    'with Redis: two servers hear each other through Redis pub/sub',
    async () => {
      if (!(await redisAvailable())) return;
      const port = await freePort();
      redis = await startRedis(port);
      const env = { REDIS_URL: `redis://127.0.0.1:${port}` };
      const user = await fixtures.createUser();
      const [first, second] = [await serve(env), await serve(env)];
      const onSecond = await openStreams(second!, 2);
      const started = Date.now();
      const id = await publish(first!, await signIn(first!, user.email), 'Through Redis');
      for (const stream of onSecond) {
        const [event] = await stream.changesCount(1, 8000);
        expect(event).toMatchObject({ type: 'created', data: { id } });
      }
      // Sooner than the outbox poll's safety net (5 s): the message carried it.
      expect(Date.now() - started).toBeLessThan(4000);
    },
    PROCESS_TEST_TIMEOUT,
  );
});
