/**
 * `client.api.<version>.<resource>.live()`: a resource's live route (`GET …/live`, Server-Sent
 * Events) as an async iterator of typed events that reconnects by itself, resuming with
 * `Last-Event-ID`. Run-time code on `fetch` alone: the parser is `sse.ts`, no dependency.
 */
import type { ClientError } from './result.ts';
import { sseParser } from './sse.ts';

/** One change of a live list, as the server sends it (`data` is the event's JSON). */
export type LiveEvent<Row, Id> =
  /** A row entered the caller's view (created, or changed so that the list now shows it). */
  | { type: 'created'; id: string; data: { id: Id; record: Row } }
  /** A row of the view changed (it stays in it). */
  | { type: 'updated'; id: string; data: { id: Id; record: Row } }
  /** A row left the view (deleted, or changed so that the list no longer shows it): no record. */
  | { type: 'deleted'; id: string; data: { id: Id } }
  /**
   * The stream could not resume (the position is older than the server keeps): reload the list,
   * then keep reading; the events after this one are the changes since.
   */
  | { type: 'reset'; id: string; data: Record<string, never> };

/** Options of `live()`. */
export interface LiveOptions {
  /** Ends the stream (as `close()` does). */
  signal?: AbortSignal;
  /** Headers of this stream only. */
  headers?: Record<string, string>;
  /** Resume after this event id (a position kept from an earlier stream's `lastEventId`). */
  lastEventId?: string;
  /**
   * Reconnect when nothing, not even a heartbeat, arrived for this long while waiting for an
   * event (a connection dropped without a close). Default 60,000 ms: the server sends a heartbeat
   * at least every 30 s.
   */
  idleTimeoutMs?: number;
}

/**
 * A live stream: `for await (const event of stream)`. Leaving the loop (`break`, `return()`),
 * `close()` or the options' `signal` closes the connection. The loop also ends when the server
 * refuses the stream for good (401, 403, 404, 400): `error` then says why.
 */
export interface LiveStream<Event> extends AsyncIterableIterator<Event> {
  /** The id of the last event received ('' before the first): what a later stream resumes from. */
  readonly lastEventId: string;
  /** Why the stream ended on its own, or `null`. */
  readonly error: ClientError | null;
  close(): void;
}

/** How the stream reaches the server: the URL and headers, and a refusal's error. */
export interface LiveTransport {
  /** The live route's URL with its query, or why it cannot be called. */
  url: () => Promise<{ data: string; error: null } | { data: null; error: ClientError }>;
  fetch: (input: string, init: RequestInit) => Promise<Response>;
  headers: Record<string, string>;
  errorOf: (response: Response) => Promise<ClientError>;
}

/** The first wait before reconnecting, until the server says otherwise with `retry:`. */
const FIRST_DELAY_MS = 1000;
const MAX_DELAY_MS = 30_000;
const DEFAULT_IDLE_MS = 60_000;
const EVENT_TYPES = new Set(['created', 'updated', 'deleted', 'reset']);

/** A refusal worth another try: too many streams (429), a timeout or a server error. */
const retryable = (status: number) => status === 429 || status === 408 || status >= 500;

/** `Retry-After` in milliseconds (seconds or an HTTP date), or null. */
function retryAfterMs(response: Response): number | null {
  const value = response.headers.get('retry-after');
  if (!value) return null;
  if (/^\s*\d+\s*$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - Date.now());
}

/** Waits `ms` (a quarter more at most, so that many clients do not come back at once); false when aborted. */
function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  const wait = ms * (1 + Math.random() * 0.25);
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    const done = (ok: boolean) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', aborted);
      resolve(ok);
    };
    const aborted = () => done(false);
    const timer = setTimeout(() => done(true), wait);
    signal.addEventListener('abort', aborted);
  });
}

/** The typed event of an SSE message, or null for a type or a body this client does not know. */
function eventOf(message: { event: string; data: string; id: string }): LiveEvent<unknown, unknown> | null {
  if (!EVENT_TYPES.has(message.event)) return null;
  let data: unknown;
  try {
    data = JSON.parse(message.data);
  } catch {
    return null;
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return null;
  return { type: message.event, id: message.id, data } as LiveEvent<unknown, unknown>;
}

/** Opens a live stream through `transport` (see `LiveStream`). */
export function openLive(transport: LiveTransport, options: LiveOptions = {}): LiveStream<unknown> {
  const stop = new AbortController();
  const outer = options.signal;
  const abort = () => stop.abort();
  if (outer?.aborted) stop.abort();
  else outer?.addEventListener('abort', abort, { once: true });
  const parser = sseParser(options.lastEventId ?? '');
  const idleMs = options.idleTimeoutMs ?? DEFAULT_IDLE_MS;
  let error: ClientError | null = null;
  // The id of the last event handed out (the parser may be ahead, within one chunk).
  let position = parser.lastEventId;

  async function* run(): AsyncGenerator<LiveEvent<unknown, unknown>, undefined> {
    let serverRetry: number | null = null;
    let failures = 0;
    const backoff = () =>
      Math.max(serverRetry ?? 0, Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** Math.max(0, failures - 1)));
    // The route's URL (the client may first read the API's path from the server): a network
    // failure is tried again like a dropped stream, a refusal ends the stream.
    let url: string | undefined;
    while (url === undefined) {
      try {
        const resolved = await transport.url();
        if (resolved.error) {
          error = resolved.error;
          return;
        }
        url = resolved.data;
      } catch {
        failures += 1;
        if (!(await pause(backoff(), stop.signal))) return;
      }
    }
    while (!stop.signal.aborted) {
      // One connection; its own controller also fires when the stream goes quiet for too long.
      const attempt = new AbortController();
      const cancel = () => attempt.abort();
      stop.signal.addEventListener('abort', cancel);
      let idle: ReturnType<typeof setTimeout> | undefined;
      let wait: number;
      // Whether this connection carried anything: then its end is no failure to back off from.
      let delivered = false;
      /** The wait after this connection ended: the server's `retry`, or a back-off if it carried nothing. */
      const ended = () => {
        if (delivered) return serverRetry ?? FIRST_DELAY_MS;
        failures += 1;
        return backoff();
      };
      try {
        const headers: Record<string, string> = {
          ...transport.headers,
          accept: 'text/event-stream',
          'cache-control': 'no-cache',
          ...options.headers,
          ...(parser.lastEventId ? { 'last-event-id': parser.lastEventId } : {}),
        };
        const response = await transport.fetch(url, {
          method: 'GET',
          headers,
          credentials: 'include',
          signal: attempt.signal,
        });
        if (!response.ok) {
          if (!retryable(response.status)) {
            error = await transport.errorOf(response);
            return;
          }
          await response.body?.cancel().catch(() => undefined);
          failures += 1;
          wait = retryAfterMs(response) ?? backoff();
        } else if (!/^text\/event-stream/i.test(response.headers.get('content-type') ?? '')) {
          await response.body?.cancel().catch(() => undefined);
          error = { status: response.status, message: 'The server did not answer with an event stream.' };
          return;
        } else {
          const reader = response.body!.getReader();
          const decoder = new TextDecoder();
          parser.restart();
          for (;;) {
            idle = setTimeout(cancel, idleMs);
            const { done, value } = await reader.read();
            clearTimeout(idle);
            if (done) break;
            const chunk = parser.feed(decoder.decode(value, { stream: true }));
            if (chunk.retry !== null) serverRetry = chunk.retry;
            if (chunk.sawLine && !delivered) {
              delivered = true;
              failures = 0;
            }
            for (const message of chunk.messages) {
              const event = eventOf(message);
              position = message.id;
              if (event) yield event;
            }
            position = parser.lastEventId;
          }
          wait = ended();
        }
      } catch {
        // A network failure, a dropped or quiet connection: try again (an abort by the caller ends).
        if (stop.signal.aborted) return;
        wait = ended();
      } finally {
        clearTimeout(idle);
        stop.signal.removeEventListener('abort', cancel);
        attempt.abort();
      }
      if (!(await pause(wait, stop.signal))) return;
    }
    return undefined;
  }

  // However the stream ends, a long-lived outer signal keeps no reference to it.
  const events = (async function* () {
    try {
      return yield* run();
    } finally {
      outer?.removeEventListener('abort', abort);
      stop.abort();
    }
  })();
  const stream: LiveStream<unknown> = {
    get lastEventId() {
      return position;
    },
    get error() {
      return error;
    },
    close() {
      stop.abort();
    },
    next: () => events.next(),
    async return() {
      // Abort first: a `next()` waiting on the network settles (done) instead of blocking `return`.
      stop.abort();
      await events.return(undefined);
      return { done: true, value: undefined };
    },
    async throw(reason?: unknown) {
      stop.abort();
      return events.throw(reason);
    },
    [Symbol.asyncIterator]() {
      return stream;
    },
  };
  return stream;
}
