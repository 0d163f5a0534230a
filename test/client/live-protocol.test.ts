// Dialect-independent: the client against a small real SSE server (no database); `npm test` runs it with the first database only.
/**
 * `client.api.v1.posts.live()` against a small Server-Sent Events server on loopback that speaks
 * the live route's wire protocol (events `created|updated|deleted` with `id:` and
 * `data: {"id",…}`, `event: reset`, heartbeat comments, `retry:`, 429 with `Retry-After`). Each
 * test scripts the server's answers per connection and checks what the client sent and yielded:
 * reconnection with `Last-Event-ID`, the `retry:` and `Retry-After` waits, stopping on 401/403,
 * `reset`, and closing the connection on `break`, `return()` and an aborted signal.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../../src/client/index.ts';
import type demoConfig from '../../examples/blog/citadel.config.ts';

/** One connection as the server saw it. */
interface Connection {
  url: string;
  headers: IncomingMessage['headers'];
  at: number;
  closed: Promise<void>;
}

type Script = (request: IncomingMessage, response: ServerResponse, index: number) => void;

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

/** A server answering its n-th connection with `scripts[n]` (the last one for the rest). */
async function sseServer(scripts: Script[]): Promise<{ base: string; connections: Connection[] }> {
  const connections: Connection[] = [];
  server = createServer((request, response) => {
    const index = connections.length;
    connections.push({
      url: request.url!,
      headers: request.headers,
      at: Date.now(),
      closed: new Promise((resolve) => response.on('close', () => resolve())),
    });
    scripts[Math.min(index, scripts.length - 1)]!(request, response, index);
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { base: `http://127.0.0.1:${(server!.address() as AddressInfo).port}`, connections };
}

const open = (response: ServerResponse) =>
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
const event = (type: string, id: string, data: unknown) =>
  `event: ${type}\nid: ${id}\ndata: ${JSON.stringify(data)}\n\n`;
const post = (id: string, title: string) => ({ id, record: { id, title } });

function clientOf(base: string) {
  return createClient<typeof demoConfig>({ baseUrl: base, apiBaseUrl: '/api', token: 'secret-token' });
}

/** The next `count` events of a stream. */
async function take<T>(stream: AsyncIterator<T>, count: number): Promise<T[]> {
  const events: T[] = [];
  while (events.length < count) {
    const next = await stream.next();
    if (next.done) break;
    events.push(next.value);
  }
  return events;
}

describe('client live streams (wire protocol)', () => {
  it('sends the query and credentials, yields typed events in order, skips heartbeats and unknown events', async () => {
    const { base, connections } = await sseServer([
      (_, response) => {
        open(response);
        response.write(': heartbeat\n\n');
        response.write(event('created', '1', post('a1', 'First')));
        response.write('event: something-else\nid: 2\ndata: {}\n\n');
        response.write(event('updated', '3', post('a1', 'First, edited')) + ': heartbeat\n\n');
        response.write(event('deleted', '4', { id: 'a1' }));
      },
    ]);
    const stream = clientOf(base).api.v1.posts.live({
      filter: { status: { eq: 'published' } },
      fields: ['title'],
    });
    const events = await take(stream, 3);
    expect(events).toEqual([
      { type: 'created', id: '1', data: post('a1', 'First') },
      { type: 'updated', id: '3', data: post('a1', 'First, edited') },
      { type: 'deleted', id: '4', data: { id: 'a1' } },
    ]);
    expect(stream.lastEventId).toBe('4');
    const url = new URL(connections[0]!.url, base);
    expect(url.pathname).toBe('/api/v1/posts/live');
    expect(JSON.parse(url.searchParams.get('filter')!)).toEqual({ status: { eq: 'published' } });
    expect(url.searchParams.get('fields')).toBe('title');
    expect(connections[0]!.headers.accept).toBe('text/event-stream');
    expect(connections[0]!.headers.authorization).toBe('Bearer secret-token');
    expect(connections[0]!.headers['last-event-id']).toBeUndefined();
    stream.close();
  });

  it('reconnects after a dropped connection with Last-Event-ID of the last whole event', async () => {
    const { base, connections } = await sseServer([
      (_, response) => {
        open(response);
        response.write('retry: 50\n' + event('created', '10', post('b1', 'One')));
        // Cut inside the next event: its id must not count.
        response.write('event: created\nid: 11\ndata: {"id":"b2"');
        setTimeout(() => response.socket?.destroy(), 30);
      },
      (_, response) => {
        open(response);
        response.write(event('created', '11', post('b2', 'Two')));
      },
    ]);
    const stream = clientOf(base).api.v1.posts.live();
    const events = await take(stream, 2);
    expect(events.map((e) => e.id)).toEqual(['10', '11']);
    expect(connections).toHaveLength(2);
    expect(connections[1]!.headers['last-event-id']).toBe('10');
    await stream.return!();
  });

  it("waits the server's retry: before reconnecting after the server ends the stream", async () => {
    const { base, connections } = await sseServer([
      (_, response) => {
        open(response);
        response.end('retry: 400\n' + event('created', '1', post('c1', 'One')));
      },
      (_, response) => {
        open(response);
        response.write(event('created', '2', post('c2', 'Two')));
      },
    ]);
    const stream = clientOf(base).api.v1.posts.live();
    await take(stream, 2);
    const gap = connections[1]!.at - connections[0]!.at;
    expect(gap).toBeGreaterThanOrEqual(400);
    // Not the 1 s default nor a long back-off: the server's hint (a quarter more at most, plus slack).
    expect(gap).toBeLessThan(900);
    expect(connections[1]!.headers['last-event-id']).toBe('1');
    stream.close();
  });

  it('backs off on 429 for its Retry-After, then connects again', async () => {
    const { base, connections } = await sseServer([
      (_, response) => {
        response.writeHead(429, { 'retry-after': '1', 'content-type': 'application/problem+json' });
        response.end(JSON.stringify({ type: 'about:blank', title: 'Too Many Requests', status: 429 }));
      },
      (_, response) => {
        open(response);
        response.write(event('created', '5', post('d1', 'After the wait')));
      },
    ]);
    const stream = clientOf(base).api.v1.posts.live();
    const [first] = await take(stream, 1);
    expect(first!.data.id).toBe('d1');
    expect(connections[1]!.at - connections[0]!.at).toBeGreaterThanOrEqual(1000);
    expect(stream.error).toBeNull();
    stream.close();
  });

  for (const status of [401, 403]) {
    it(`stops for good on ${status}: the loop ends, error says why, no other connection`, async () => {
      const { base, connections } = await sseServer([
        (_, response) => {
          open(response);
          response.end(event('created', '1', post('e1', 'One')));
        },
        (_, response) => {
          response.writeHead(status, { 'content-type': 'application/problem+json' });
          response.end(
            JSON.stringify({
              type: 'about:blank',
              title: status === 401 ? 'Unauthorized' : 'Forbidden',
              status,
              detail: 'The session ended.',
              instance: '/api/v1/posts/live',
            }),
          );
        },
      ]);
      const stream = clientOf(base).api.v1.posts.live({}, { idleTimeoutMs: 5000 });
      const seen: string[] = [];
      for await (const change of stream) seen.push(change.id);
      expect(seen).toEqual(['1']);
      expect(stream.error).toMatchObject({ status, message: 'The session ended.' });
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(connections).toHaveLength(2);
    });
  }

  it('reads the API path from the server, trying again after a network failure there', async () => {
    const { base, connections } = await sseServer([
      (_, response) => response.socket!.destroy(),
      (_, response) => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ status: 'success', data: { endpoints: [], api: '/api' } }));
      },
      (_, response) => {
        open(response);
        response.write(event('created', '1', post('j1', 'Found')));
      },
    ]);
    const stream = createClient<typeof demoConfig>({ baseUrl: base }).api.v1.posts.live();
    const [first] = await take(stream, 1);
    expect(first!.data.id).toBe('j1');
    expect(connections.map((c) => new URL(c.url, base).pathname)).toEqual([
      '/endpoints',
      '/endpoints',
      '/api/v1/posts/live',
    ]);
    stream.close();
  });

  it('surfaces reset as an event and goes on with the events after it', async () => {
    const { base, connections } = await sseServer([
      (_, response) => {
        open(response);
        response.write('event: reset\nid: 90\ndata: {}\n\n' + event('created', '91', post('f1', 'New')));
      },
    ]);
    const stream = clientOf(base).api.v1.posts.live({}, { lastEventId: '3' });
    const events = await take(stream, 2);
    expect(events).toEqual([
      { type: 'reset', id: '90', data: {} },
      { type: 'created', id: '91', data: post('f1', 'New') },
    ]);
    expect(connections[0]!.headers['last-event-id']).toBe('3');
    stream.close();
  });

  it('closes the connection on break out of for await', async () => {
    const { base, connections } = await sseServer([
      (_, response) => {
        open(response);
        response.write(event('created', '1', post('g1', 'One')) + event('created', '2', post('g2', 'Two')));
      },
    ]);
    for await (const change of clientOf(base).api.v1.posts.live()) {
      expect(change.id).toBe('1');
      break;
    }
    await connections[0]!.closed;
  });

  it('an aborted signal (or return()) ends a pending next() and closes the connection', async () => {
    const { base, connections } = await sseServer([(_, response) => open(response)]);
    const controller = new AbortController();
    const stream = clientOf(base).api.v1.posts.live({}, { signal: controller.signal });
    const pending = stream.next();
    await new Promise((resolve) => setTimeout(resolve, 100));
    controller.abort();
    expect(await pending).toEqual({ done: true, value: undefined });
    await connections[0]!.closed;

    const second = clientOf(base).api.v1.posts.live();
    const waiting = second.next();
    await new Promise((resolve) => setTimeout(resolve, 100));
    await second.return!();
    expect(await waiting).toEqual({ done: true, value: undefined });
    await connections[1]!.closed;
  });

  it('reconnects when the connection goes quiet (not even a heartbeat) for idleTimeoutMs', async () => {
    const { base, connections } = await sseServer([
      (_, response) => {
        open(response);
        response.write(event('created', '1', post('h1', 'One')));
      },
      (_, response) => {
        open(response);
        response.write(event('created', '2', post('h2', 'Two')));
      },
    ]);
    const stream = clientOf(base).api.v1.posts.live({}, { idleTimeoutMs: 300 });
    const events = await take(stream, 2);
    expect(events.map((e) => e.id)).toEqual(['1', '2']);
    expect(connections[1]!.headers['last-event-id']).toBe('1');
    await connections[0]!.closed;
    stream.close();
  });
});
