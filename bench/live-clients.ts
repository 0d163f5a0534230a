/**
 * The client side of `bench/live.ts`, in a process of its own so that the server's CPU time is the
 * server's alone: live subscribers (plain `node:http` and a scan for the events, to keep this side
 * light) or the writers; `bench/live.ts` runs one process of each, so that reading a thousand
 * streams does not slow the writers' own event loop. Driven over IPC; every message is answered.
 */
import http from 'node:http';

type Command =
  | { type: 'subscribe'; url: string; count: number }
  | { type: 'write'; url: string; token: string; seconds: number; concurrency: number }
  | { type: 'paced'; url: string; token: string; count: number; intervalMs: number }
  | { type: 'collect'; expected: number; quietMs: number }
  | { type: 'close' }
  | { type: 'cpu' };

/** Per post (by its public id): when it was created and when each subscriber received it. */
interface Arrival {
  createdAt: number;
  first: number;
  last: number;
  count: number;
}

const arrivals = new Map<string, Arrival>();
const requests: http.ClientRequest[] = [];
let lastArrival = Date.now();
let refused = 0;
/** Streams the server ended (a subscriber here does not reconnect: what it then misses shows). */
let ended = 0;

/**
 * The `created` events of a stream's text, by a scan rather than a full SSE parse: this side must
 * stay light next to the server it measures (a thousand streams, hundreds of events a second
 * each): the post's id, and its `created_at` the first time. What a chunk cuts off waits for the next.
 */
const CREATED = /(?:^|\n)event: created\ndata: \{"id":"([^"]+)"([^\n]*)\n/g;
const CREATED_AT = /"created_at":"([^"]+)"/;

function subscribe(url: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { agent: false, headers: { accept: 'text/event-stream' } }, (response) => {
      if (response.statusCode !== 200) {
        refused += 1;
        reject(new Error(`live route answered ${response.statusCode}`));
        response.resume();
        return;
      }
      response.setEncoding('utf8');
      response.on('close', () => (ended += 1));
      let ready = false;
      let pending = '';
      response.on('data', (text: string) => {
        const now = Date.now();
        pending += text;
        const complete = pending.lastIndexOf('\n\n');
        if (complete < 0) return;
        const blocks = pending.slice(0, complete + 2);
        pending = pending.slice(complete + 2);
        for (const [, id, rest] of blocks.matchAll(CREATED)) {
          let arrival = arrivals.get(id!);
          if (!arrival) {
            const createdAt = Date.parse(CREATED_AT.exec(rest!)?.[1] ?? '');
            arrival = { createdAt, first: now, last: now, count: 0 };
            arrivals.set(id!, arrival);
          }
          arrival.count += 1;
          arrival.last = Math.max(arrival.last, now);
          lastArrival = now;
        }
        // The stream's position block (`id: N`) came: it is in the feed.
        if (!ready && /(?:^|\n)id: \d+\n/.test(blocks)) {
          ready = true;
          resolve();
        }
      });
    });
    request.on('error', reject);
    requests.push(request);
  });
}

async function post(url: string, token: string, n: number): Promise<void> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json',
    },
    body: JSON.stringify({ title: `Live bench post ${n}`, body: `Body ${n}.`, status: 'published' }),
  });
  await response.arrayBuffer();
  if (response.status !== 201) throw new Error(`POST answered ${response.status}`);
}

let written = 0;

/** `concurrency` writers, each one request after the other, for `seconds`. */
async function write(url: string, token: string, seconds: number, concurrency: number) {
  const started = performance.now();
  const end = started + seconds * 1000;
  let writes = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        await post(url, token, (written += 1));
        writes += 1;
      }
    }),
  );
  return { writes, seconds: (performance.now() - started) / 1000 };
}

async function collect(expected: number, quietMs: number) {
  // Wait for every expected delivery, or until nothing has arrived for `quietMs`.
  for (;;) {
    const delivered = [...arrivals.values()].reduce((sum, a) => sum + a.count, 0);
    if (delivered >= expected || Date.now() - lastArrival > quietMs) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const posts = [...arrivals.values()];
  const report = {
    posts: posts.length,
    delivered: posts.reduce((sum, a) => sum + a.count, 0),
    // Per post: from its created_at to the first and to the last subscriber.
    toFirst: posts.map((a) => a.first - a.createdAt),
    toLast: posts.map((a) => a.last - a.createdAt),
    counts: posts.map((a) => a.count),
    ended,
  };
  arrivals.clear();
  return report;
}

async function handle(command: Command): Promise<unknown> {
  switch (command.type) {
    case 'subscribe': {
      // In batches: a thousand connections at once would only queue in the listen backlog.
      for (let i = 0; i < command.count; i += 50)
        await Promise.all(
          Array.from({ length: Math.min(50, command.count - i) }, () => subscribe(command.url)),
        );
      return { subscribers: requests.length, refused };
    }
    case 'write':
      return write(command.url, command.token, command.seconds, command.concurrency);
    case 'paced': {
      for (let i = 0; i < command.count; i += 1) {
        await post(command.url, command.token, (written += 1));
        await new Promise((resolve) => setTimeout(resolve, command.intervalMs));
      }
      return { writes: command.count };
    }
    case 'collect':
      return collect(command.expected, command.quietMs);
    case 'cpu':
      // This process's CPU time so far (user, system; microseconds).
      return process.cpuUsage();
    case 'close':
      for (const request of requests.splice(0)) request.destroy();
      return { closed: true };
  }
}

process.on('message', (command: Command) => {
  handle(command).then(
    (result) => process.send!({ ok: true, result }),
    (error: unknown) =>
      process.send!({ ok: false, error: error instanceof Error ? error.message : String(error) }),
  );
});
process.on('disconnect', () => process.exit(0));
