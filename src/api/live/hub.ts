import type { FastifyBaseLogger } from 'fastify';
import { TooManyRequestsError } from '../../core/errors.ts';
import type { Dialect } from '../../db/url.ts';
import type { CitadelServices } from '../../auth/core/services.ts';
import type { AnyDb } from '../request/context.ts';
import type { LiveOptions } from '../resource/types.ts';
import { eventsFor, type LiveEvent } from './events.ts';
import {
  changesAfter,
  lastEventId,
  sweepChanges,
  writeNotedChanges,
  type LiveChange,
  type WrittenChanges,
} from './outbox.ts';
import { eventFrame, type SseStream } from './sse-stream.ts';
import { DeliveryPace } from './pace.ts';
import type { StreamCredential } from './credentials.ts';
import { openTransport, type LiveTransport } from './transports.ts';
import type { ListView } from './visibility.ts';

/** Every live option with its default. */
export const LIVE_DEFAULTS: Required<LiveOptions> = {
  retentionSeconds: 600,
  heartbeatSeconds: 25,
  maxStreamsPerUser: 10,
  maxStreamsPerProcess: 1000,
  bufferBytes: 262_144,
};

/** Events read from the outbox at a time, and judged with one list read per group. */
const BATCH = 200;
/** Events one delivery reads and sends at most (those committed while a feed waited for its pace). */
const DELIVERY_EVENTS = 1000;
/** How often each stream's session or token is checked again (a revoked one ends within 5 s). */
const CREDENTIAL_CHECK_MS = 2000;
/** Retry hint of streams closed at shutdown, in milliseconds. */
export const SHUTDOWN_RETRY_MS = 2000;
/** Groups whose events are judged at the same time. */
const PARALLEL_GROUPS = 8;
/** Streams written to between two yields to the event loop (requests are answered in between). */
const STREAMS_PER_SLICE = 100;
/** The largest part of the event loop a feed's deliveries may take, and the longest wait. */
const DELIVERY_SHARE = 0.05;
const MAX_DELIVERY_WAIT_MS = 1000;

/** A batch of changes as one group of subscribers sees it. */
export interface JudgedBatch {
  ids: readonly number[];
  /** Per change, its event for this group, or null when the group may not see it. */
  events: readonly (LiveEvent | null)[];
  /** The events serialized and encoded once for the whole group, in order. */
  frames: Buffer;
}

/** One open stream. */
export class Subscriber {
  /** The last event id this stream has passed (sent or not visible to it). */
  cursor = 0;
  /** While its missed events are replayed, newer events wait here. */
  private held: { id: number; event: LiveEvent | null }[] | null = [];

  constructor(
    readonly view: ListView,
    /** Subscribers with the same group see the same rows (same plan, same caller identity). */
    readonly group: string,
    readonly stream: SseStream,
    readonly userId: number | null,
    readonly credential: StreamCredential | null,
  ) {}

  /**
   * A judged batch: a stream that is live and behind the whole batch gets the group's frames in
   * one write; one still replaying or already past part of it takes the events one by one.
   */
  deliver(batch: JudgedBatch): void {
    const first = batch.ids[0];
    if (first === undefined) return;
    if (this.held === null && this.cursor < first) {
      this.cursor = batch.ids.at(-1)!;
      this.stream.frames(batch.frames);
      return;
    }
    batch.ids.forEach((id, index) => this.take(id, batch.events[index] ?? null));
  }

  take(id: number, event: LiveEvent | null): void {
    if (this.held) {
      this.held.push({ id, event });
      return;
    }
    if (id <= this.cursor) return;
    this.cursor = id;
    if (event) this.stream.event(event);
  }

  /** The events up to `id` cannot be delivered: a reset, and on from there. */
  reset(id: number): void {
    if (this.held) this.held = [];
    this.cursor = Math.max(this.cursor, id);
    this.stream.reset(id);
  }

  /** Replay done: what arrived meanwhile goes out, in order, past what the replay sent. */
  live(cursor: number): void {
    this.cursor = Math.max(this.cursor, cursor);
    const held = this.held ?? [];
    this.held = null;
    for (const { id, event } of held) this.take(id, event);
  }
}

/** One resource's subscribers in this process, and how far its events have been delivered. */
class Feed {
  position = 0;
  readonly subscribers = new Set<Subscriber>();
  readonly pace = new DeliveryPace(DELIVERY_SHARE, MAX_DELIVERY_WAIT_MS);
  /** A drain is due (its timer runs): later commits are delivered by it. */
  due = false;
  private chain: Promise<void> = Promise.resolve();

  constructor(readonly resource: string) {}

  /** Run `task` after every earlier one of this feed: deliveries and joins never interleave. */
  serial<T>(task: () => Promise<T>): Promise<T> {
    const run = this.chain.then(task);
    this.chain = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }
}

export interface HubDependencies {
  db: AnyDb;
  dialect: Dialect;
  databaseUrl: string;
  redisUrl: string | null | undefined;
  services: CitadelServices;
  log: FastifyBaseLogger;
  options: LiveOptions | undefined;
}

/**
 * The live changes of one server: records the outbox on the write path (`beforeCommit`), hears of
 * committed events (its own after commit, other processes' through the transport, and a poll of
 * the outbox as a safety net), and delivers each to its subscribers in id order, judged per group.
 */
export class LiveHub {
  readonly options: Required<LiveOptions>;
  private transport: LiveTransport | null = null;
  private readonly feeds = new Map<string, Feed>();
  private readonly perUser = new Map<number, number>();
  private streams = 0;
  private readonly credentials = new Map<
    string,
    { credential: StreamCredential; subscribers: Set<Subscriber> }
  >();
  private readonly timers: NodeJS.Timeout[] = [];
  private stopped = false;

  constructor(private readonly deps: HubDependencies) {
    this.options = { ...LIVE_DEFAULTS, ...deps.options };
  }

  async start(): Promise<void> {
    const { dialect, databaseUrl, redisUrl, log } = this.deps;
    this.transport = await openTransport(
      { dialect, databaseUrl, redisUrl },
      (r, id) => this.heard(r, id),
      log,
    );
    const every = (ms: number, task: () => Promise<void> | void) => {
      let busy = false;
      const timer = setInterval(() => {
        if (busy) return;
        busy = true;
        Promise.resolve()
          .then(task)
          .catch((error: unknown) => log.warn({ err: { message: (error as Error).message } }, 'live changes'))
          .finally(() => (busy = false));
      }, ms);
      timer.unref();
      this.timers.push(timer);
    };
    every(this.options.heartbeatSeconds * 1000, () => this.heartbeat());
    every(CREDENTIAL_CHECK_MS, () => this.checkCredentials());
    // Other processes' events without a transport (MySQL without Redis): a poll; with one, a
    // safety net for a message lost with a connection.
    every(this.transport.name === 'none' ? 1000 : 5000, () => this.poll());
    every(Math.min(60, Math.ceil(this.options.retentionSeconds / 2)) * 1000, () => this.sweep());
  }

  /** End every stream with a reconnect hint, stop the timers and the transport. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    for (const timer of this.timers) clearInterval(timer);
    for (const feed of this.feeds.values())
      for (const subscriber of feed.subscribers) subscriber.stream.close(SHUTDOWN_RETRY_MS);
    await this.transport?.close();
  }

  // The write path.

  /** Inside the writing transaction, as its last work: the outbox rows (and NOTIFY). */
  async beforeCommit(trx: AnyDb, now: string): Promise<WrittenChanges | null> {
    const written = await writeNotedChanges(trx, this.deps.dialect, now);
    if (written && this.transport) await this.transport.beforeCommit(trx, written);
    return written;
  }

  /** After commit: this process's subscribers at once, the others through the transport. */
  afterCommit(written: WrittenChanges): void {
    for (const [resource, id] of written) this.heard(resource, id);
    this.transport?.afterCommit(written);
  }

  // Streams.

  /** Room for one more stream of this user, or 429. Call `release` when it ends. */
  admit(userId: number | null): () => void {
    const { maxStreamsPerProcess, maxStreamsPerUser } = this.options;
    if (this.stopped)
      throw new TooManyRequestsError(SHUTDOWN_RETRY_MS / 1000, 'The server is shutting down.');
    if (this.streams >= maxStreamsPerProcess)
      throw new TooManyRequestsError(5, 'Too many live streams on this server; try again later.');
    if (userId !== null && (this.perUser.get(userId) ?? 0) >= maxStreamsPerUser)
      throw new TooManyRequestsError(
        5,
        `At most ${maxStreamsPerUser} live streams per user; close one first.`,
      );
    this.streams += 1;
    if (userId !== null) this.perUser.set(userId, (this.perUser.get(userId) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.streams -= 1;
      if (userId === null) return;
      const left = (this.perUser.get(userId) ?? 1) - 1;
      if (left > 0) this.perUser.set(userId, left);
      else this.perUser.delete(userId);
    };
  }

  /**
   * Start delivering to a subscriber: from `lastEventId` when every event after it is still held
   * (each missed event replayed in order), else from now, after one `reset` when an id was given.
   */
  async open(subscriber: Subscriber, lastEventIdHeader: string | undefined): Promise<void> {
    const { db } = this.deps;
    const name = subscriber.view.resource.name;
    let feed = this.feeds.get(name);
    if (!feed) this.feeds.set(name, (feed = new Feed(name)));
    const joined = feed;
    subscriber.stream.whenEnded(() => this.leave(joined, subscriber));
    this.watch(subscriber);
    // Joined between two deliveries: every event after `start` reaches it through the feed.
    const start = await feed.serial(async () => {
      if (feed.subscribers.size === 0) feed.position = await lastEventId(db, name);
      if (subscriber.stream.isOpen) feed.subscribers.add(subscriber);
      return feed.position;
    });
    const resumeFrom = lastEventIdHeader === undefined ? null : parseEventId(lastEventIdHeader);
    if (resumeFrom !== null && (await this.resumable(name, resumeFrom))) {
      // Up to the last committed event, not only the feed's position: the feed delivers at its
      // pace, and a stream that ends after its replay (a buffered answer) must still hold them.
      // What the feed then delivers up to there, the stream skips.
      const upTo = Math.max(start, await lastEventId(db, name));
      let cursor = resumeFrom;
      while (cursor < upTo && subscriber.stream.isOpen) {
        const changes = await changesAfter(db, name, cursor, BATCH, upTo);
        if (changes.length === 0) break;
        const events = await eventsFor(subscriber.view, changes);
        events.forEach((event) => event && subscriber.stream.event(event));
        cursor = changes.at(-1)!.id;
      }
      // Replayed events this caller may not see still move its position.
      subscriber.stream.position(Math.max(upTo, cursor));
      subscriber.live(Math.max(upTo, cursor));
      return;
    }
    if (lastEventIdHeader !== undefined) subscriber.stream.reset(start);
    else subscriber.stream.position(start);
    subscriber.live(start);
  }

  /** Every event after `id` is still held (and `id` is one this resource has had). */
  private async resumable(resource: string, id: number): Promise<boolean> {
    const last = await lastEventId(this.deps.db, resource);
    if (id > last) return false;
    if (id === last) return true;
    const row = (await this.deps.db
      .selectFrom('live_changes')
      .select((eb) => eb.fn.countAll().as('held'))
      .where('resource', '=', resource)
      .where('id', '>', id)
      .where('id', '<=', last)
      .executeTakeFirst()) as { held: unknown } | undefined;
    return Number(row?.held ?? 0) === last - id;
  }

  private leave(feed: Feed, subscriber: Subscriber): void {
    feed.subscribers.delete(subscriber);
    const credential = subscriber.credential;
    if (!credential) return;
    const entry = this.credentials.get(credential.key);
    entry?.subscribers.delete(subscriber);
    if (entry && entry.subscribers.size === 0) this.credentials.delete(credential.key);
  }

  private watch(subscriber: Subscriber): void {
    const credential = subscriber.credential;
    if (!credential) return;
    let entry = this.credentials.get(credential.key);
    if (!entry) this.credentials.set(credential.key, (entry = { credential, subscribers: new Set() }));
    entry.subscribers.add(subscriber);
    if (credential.expiresAt !== null) {
      // A token with a fixed end: the stream ends with it at the latest.
      const left = Date.parse(credential.expiresAt) - this.deps.services.clock.now().getTime();
      if (left <= 0) subscriber.stream.close();
      else if (left < 2 ** 31 - 1) {
        const timer = setTimeout(() => subscriber.stream.close(), left);
        timer.unref();
        subscriber.stream.whenEnded(() => clearTimeout(timer));
      }
    }
  }

  private async checkCredentials(): Promise<void> {
    for (const [key, { credential, subscribers }] of [...this.credentials]) {
      const valid = await credential.check(this.deps.services).catch(() => false);
      if (!valid) {
        this.credentials.delete(key);
        for (const subscriber of [...subscribers]) subscriber.stream.close();
        continue;
      }
      await this.checkMemberships([...subscribers]);
    }
  }

  /**
   * Streams of a tenant-scoped resource were authorized for an organization and a role: once the
   * caller is no longer a member, or holds another role, they end (the client reconnects and is
   * authorized again). One lookup per credential and organization.
   */
  private async checkMemberships(subscribers: Subscriber[]): Promise<void> {
    const tenancy = this.deps.services.tenancy;
    if (!tenancy) return;
    const now = new Map<number, string | null>();
    for (const subscriber of subscribers) {
      const tenant = subscriber.view.scope.tenant;
      if (!tenant || subscriber.view.resource.tenant === null) continue;
      if (!now.has(tenant.organizationId)) {
        const resolved = await tenancy
          .resolve(subscriber.view.scope.request, this.deps.db as never)
          .catch(() => null);
        now.set(
          tenant.organizationId,
          resolved && resolved.organizationId === tenant.organizationId ? resolved.role : null,
        );
      }
      if (now.get(tenant.organizationId) !== tenant.role) subscriber.stream.close();
    }
  }

  // Delivery.

  /**
   * Events of `resource` up to `lastId` are committed: deliver what this process has not, once the
   * feed's pace allows (the caller, often a write that just committed, returns at once).
   */
  heard(resource: string, lastId: number): void {
    const feed = this.feeds.get(resource);
    if (!feed || feed.subscribers.size === 0 || lastId <= feed.position) return;
    this.schedule(feed);
  }

  private schedule(feed: Feed): void {
    if (feed.due || this.stopped) return;
    feed.due = true;
    const timer = setTimeout(() => {
      feed.due = false;
      void feed
        .serial(() => this.drain(feed))
        .catch((error: unknown) => {
          this.deps.log.error({ err: error }, 'live changes: delivery failed');
        });
    }, feed.pace.wait());
    timer.unref();
  }

  /** One read of the outbox past the feed's position, delivered; the rest on the next turn. */
  private async drain(feed: Feed): Promise<void> {
    if (feed.subscribers.size === 0) return;
    if (feed.pace.wait() > 0) {
      // An earlier drain delivered since this one was due: wait for the pace again.
      this.schedule(feed);
      return;
    }
    const { db } = this.deps;
    // The last id first: every event up to it has committed, so the read after it holds them all,
    // unless they were swept.
    const last = await lastEventId(db, feed.resource);
    const changes = await changesAfter(db, feed.resource, feed.position, DELIVERY_EVENTS);
    const next = changes[0]?.id ?? null;
    if ((next === null && last > feed.position) || (next !== null && next > feed.position + 1)) {
      // Events this process never delivered are no longer held (swept while it was far behind):
      // its streams cannot know what they missed, so each gets a reset from here.
      const resumeAt = next === null ? last : next - 1;
      for (const subscriber of feed.subscribers) subscriber.reset(resumeAt);
      feed.position = resumeAt;
      this.schedule(feed);
      return;
    }
    if (changes.length === 0) return;
    await this.deliver(feed, changes);
    feed.position = changes.at(-1)!.id;
    if (changes.length === DELIVERY_EVENTS || last > feed.position) this.schedule(feed);
  }

  /** Judge a batch once per group, then hand each member the group's events in one write. */
  private async deliver(feed: Feed, changes: readonly LiveChange[]): Promise<void> {
    const groups = new Map<string, Subscriber[]>();
    for (const subscriber of feed.subscribers) {
      const members = groups.get(subscriber.group);
      if (members) members.push(subscriber);
      else groups.set(subscriber.group, [subscriber]);
    }
    const pending = [...groups.values()];
    let cost = 0;
    for (let offset = 0; offset < pending.length; offset += PARALLEL_GROUPS) {
      const slice = pending.slice(offset, offset + PARALLEL_GROUPS);
      const batches = await Promise.all(slice.map((members) => this.judge(members, changes)));
      // Groups are sent in order, a slice of streams at a time, with the loop free in between.
      const sends: [Subscriber, JudgedBatch][] = [];
      slice.forEach((members, index) => {
        const batch = batches[index];
        if (batch) for (const member of members) sends.push([member, batch]);
      });
      for (let from = 0; from < sends.length; from += STREAMS_PER_SLICE) {
        const started = performance.now();
        for (const [member, batch] of sends.slice(from, from + STREAMS_PER_SLICE)) member.deliver(batch);
        // The sockets are written when the responses uncork, on the next tick: part of the cost.
        await new Promise<void>((resolve) => process.nextTick(resolve));
        cost += performance.now() - started;
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    }
    feed.pace.delivered(cost);
  }

  /** What a batch means to one group, serialized once; null when it could not be judged. */
  private async judge(members: Subscriber[], changes: readonly LiveChange[]): Promise<JudgedBatch | null> {
    try {
      const events: (LiveEvent | null)[] = [];
      for (let from = 0; from < changes.length; from += BATCH)
        events.push(...(await eventsFor(members[0]!.view, changes.slice(from, from + BATCH))));
      const frames = Buffer.from(events.map((event) => (event ? eventFrame(event) : '')).join(''));
      return { ids: changes.map((change) => change.id), events, frames };
    } catch (error) {
      // Not judged, not sent: these streams end, and their clients resume from where they were.
      this.deps.log.warn({ err: error }, 'live changes: could not judge visibility; streams closed');
      for (const member of members) member.stream.close();
      return null;
    }
  }

  private async poll(): Promise<void> {
    for (const feed of this.feeds.values()) {
      if (feed.subscribers.size === 0) continue;
      this.heard(feed.resource, await lastEventId(this.deps.db, feed.resource));
    }
  }

  private heartbeat(): void {
    for (const feed of this.feeds.values())
      for (const subscriber of feed.subscribers) subscriber.stream.comment('heartbeat');
  }

  private async sweep(): Promise<void> {
    const now = this.deps.services.clock.now().getTime();
    await sweepChanges(this.deps.db, new Date(now - this.options.retentionSeconds * 1000).toISOString());
  }
}

/** A Last-Event-ID this server could have sent: a non-negative integer. */
function parseEventId(text: string): number | null {
  if (!/^(0|[1-9][0-9]{0,14})$/.test(text.trim())) return null;
  return Number(text.trim());
}

const hubs = new WeakMap<object, LiveHub>();

/** The hub of the server whose database this is (the write path finds it from its request). */
export function hubOf(db: object): LiveHub | undefined {
  return hubs.get(db);
}

export function registerHub(db: object, hub: LiveHub): () => void {
  hubs.set(db, hub);
  return () => hubs.delete(db);
}
