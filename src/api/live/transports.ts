import cluster from 'node:cluster';
import { sql } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import { importOptional } from '../../core/optional-dependency.ts';
import { parseDatabaseUrl, type Dialect } from '../../db/url.ts';
import type { AnyDb } from '../request/context.ts';
import type { WrittenChanges } from './outbox.ts';
import { RELAY_MESSAGE } from '../../ops/cluster.ts';

/**
 * How the processes of a deployment tell each other that events were committed. The message is
 * only "resource R has events up to id N": each process then reads the outbox, so a message lost
 * (a dropped connection) delays delivery until the next message or the next poll, never loses
 * an event.
 *
 * - Redis pub/sub when REDIS_URL is set (published after commit);
 * - else PostgreSQL NOTIFY, sent inside the writing transaction, which PostgreSQL delivers to every
 *   LISTEN session only if and when it commits;
 * - else, in a `--workers` cluster, the primary relays a worker's message to every worker;
 * - else nothing leaves the process (SQLite, or MySQL without Redis: other processes find the
 *   events by polling the outbox).
 */

export const LIVE_CHANNEL = 'citadel_live';

export type Heard = (resource: string, lastId: number) => void;

export interface LiveTransport {
  readonly name: 'redis' | 'postgres' | 'cluster' | 'none';
  /** Inside the writing transaction, after the outbox rows (PostgreSQL NOTIFY). */
  beforeCommit(trx: AnyDb, written: WrittenChanges): Promise<void>;
  /** After commit. */
  afterCommit(written: WrittenChanges): void;
  close(): Promise<void>;
}

function encode(written: WrittenChanges): string {
  return JSON.stringify([...written].map(([resource, id]) => [resource, id]));
}

/** A message of another process, checked: anything malformed is dropped. */
export function decode(text: unknown, heard: Heard): void {
  if (typeof text !== 'string' || text.length > 65_536) return;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return;
  }
  if (!Array.isArray(parsed)) return;
  for (const entry of parsed) {
    if (!Array.isArray(entry) || typeof entry[0] !== 'string' || !Number.isSafeInteger(entry[1])) continue;
    heard(entry[0], entry[1] as number);
  }
}

const none: LiveTransport = {
  name: 'none',
  beforeCommit: async () => undefined,
  afterCommit: () => undefined,
  close: async () => undefined,
};

interface PubSub {
  publish(channel: string, message: string): Promise<number>;
  subscribe(channel: string): Promise<unknown>;
  on(event: string, listener: (...args: unknown[]) => void): unknown;
  disconnect(): void;
}

async function redisTransport(url: string, heard: Heard, log: FastifyBaseLogger): Promise<LiveTransport> {
  const { Redis } = await importOptional('ioredis', 'REDIS_URL', () => import('ioredis'));
  const publisher = new Redis(url, { maxRetriesPerRequest: 2 }) as unknown as PubSub;
  const subscriber = new Redis(url, { autoResubscribe: true }) as unknown as PubSub;
  for (const client of [publisher, subscriber])
    client.on('error', (error) =>
      log.warn({ err: { message: (error as Error).message } }, 'live changes: redis error'),
    );
  subscriber.on('message', (channel, message) => {
    if (channel === LIVE_CHANNEL) decode(message, heard);
  });
  await subscriber.subscribe(LIVE_CHANNEL);
  return {
    name: 'redis',
    beforeCommit: async () => undefined,
    afterCommit(written) {
      publisher.publish(LIVE_CHANNEL, encode(written)).catch((error: unknown) => {
        log.warn({ err: { message: (error as Error).message } }, 'live changes: could not publish');
      });
    },
    async close() {
      publisher.disconnect();
      subscriber.disconnect();
    },
  };
}

interface PgListener {
  connect(): Promise<unknown>;
  query(text: string): Promise<unknown>;
  on(event: 'notification', listener: (message: { channel: string; payload?: string }) => void): unknown;
  on(event: 'error' | 'end', listener: (error?: Error) => void): unknown;
  end(): Promise<void>;
}

async function postgresTransport(url: string, heard: Heard, log: FastifyBaseLogger): Promise<LiveTransport> {
  const pg = await importOptional('pg', 'A postgres: DATABASE_URL', () => import('pg'));
  let closed = false;
  let client: PgListener | null = null;
  const listen = async (): Promise<void> => {
    const next = new pg.default.Client({ connectionString: parseDatabaseUrl(url).target }) as PgListener;
    client = next;
    next.on('notification', (message) => {
      if (message.channel === LIVE_CHANNEL) decode(message.payload, heard);
    });
    // A lost connection listens again a second later; the poll covers what was said meanwhile.
    let retried = false;
    const again = (error?: Error) => {
      if (closed || retried) return;
      retried = true;
      if (error) log.warn({ err: { message: error.message } }, 'live changes: LISTEN connection lost');
      setTimeout(() => void listen().catch(() => again()), 1000).unref();
    };
    next.on('error', again);
    next.on('end', () => again());
    await next.connect();
    await next.query(`LISTEN ${LIVE_CHANNEL}`);
  };
  await listen();
  return {
    name: 'postgres',
    async beforeCommit(trx, written) {
      await sql`select pg_notify(${LIVE_CHANNEL}, ${encode(written)})`.execute(trx);
    },
    afterCommit: () => undefined,
    async close() {
      closed = true;
      await client?.end().catch(() => undefined);
    },
  };
}

function clusterTransport(heard: Heard): LiveTransport {
  const onMessage = (message: unknown) => {
    const relayed = message as { type?: unknown; channel?: unknown; data?: unknown } | null;
    if (relayed?.type === RELAY_MESSAGE && relayed.channel === LIVE_CHANNEL) decode(relayed.data, heard);
  };
  process.on('message', onMessage);
  return {
    name: 'cluster',
    beforeCommit: async () => undefined,
    afterCommit(written) {
      process.send?.({ type: RELAY_MESSAGE, channel: LIVE_CHANNEL, data: encode(written) });
    },
    async close() {
      process.off('message', onMessage);
    },
  };
}

/** The transport this deployment uses (see above). */
export async function openTransport(
  options: { dialect: Dialect; databaseUrl: string; redisUrl: string | null | undefined },
  heard: Heard,
  log: FastifyBaseLogger,
): Promise<LiveTransport> {
  if (options.redisUrl) return redisTransport(options.redisUrl, heard, log);
  if (options.dialect === 'postgres') return postgresTransport(options.databaseUrl, heard, log);
  if (cluster.isWorker && process.send) return clusterTransport(heard);
  return none;
}
