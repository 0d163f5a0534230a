import { get as httpGet, type ClientRequest, type IncomingMessage } from 'node:http';
import { createParser, type EventSourceMessage } from 'eventsource-parser';

/** One SSE message as eventsource-parser read it off the wire (`event` absent for an id-only block). */
export interface ReceivedEvent {
  id: string | undefined;
  event: string | undefined;
  data: string;
}

/**
 * A live stream read with a real HTTP client (node:http) and an independent SSE parser
 * (eventsource-parser): what a browser's EventSource would see, plus comments and retry hints.
 */
export class LiveStream {
  readonly events: ReceivedEvent[] = [];
  readonly comments: string[] = [];
  retry: number | null = null;
  /** The last id the server told, with or without an event (what EventSource keeps as lastEventId). */
  lastEventId: string | undefined;
  ended = false;
  private waiters: (() => void)[] = [];
  private message: IncomingMessage | null = null;

  private constructor(
    readonly response: { status: number; ok: boolean; headers: Headers },
    private readonly request: ClientRequest,
  ) {}

  /** Open `url` with node:http (closing it destroys the socket, so the server sees the client leave). */
  static open(url: string, headers: Record<string, string> = {}): Promise<LiveStream> {
    return new Promise((resolve, reject) => {
      const request = httpGet(url, { headers: { accept: 'text/event-stream', ...headers } }, (message) => {
        const status = message.statusCode ?? 0;
        const received = new Headers();
        for (const [name, value] of Object.entries(message.headers))
          if (typeof value === 'string') received.set(name, value);
        const stream = new LiveStream(
          { status, ok: status >= 200 && status < 300, headers: received },
          request,
        );
        stream.message = message;
        if (stream.response.ok) void stream.read(message);
        else {
          stream.ended = true;
          message.resume();
        }
        resolve(stream);
      });
      request.on('error', reject);
    });
  }

  private async read(body: IncomingMessage): Promise<void> {
    const parser = createParser({
      onEvent: (message: EventSourceMessage) => {
        this.events.push({ id: message.id, event: message.event, data: message.data });
        this.wake();
      },
      onId: (id) => {
        this.lastEventId = id;
      },
      onComment: (comment) => {
        this.comments.push(comment.trim());
        this.wake();
      },
      onRetry: (retry) => {
        this.retry = retry;
        this.wake();
      },
    });
    const decoder = new TextDecoder();
    try {
      for await (const chunk of body) parser.feed(decoder.decode(chunk as Buffer, { stream: true }));
    } catch {
      // aborted or cut
    }
    this.ended = true;
    this.wake();
  }

  private wake(): void {
    for (const waiter of this.waiters.splice(0)) waiter();
  }

  /** Wait until `done()` holds (checked after every message), or fail after `ms`. */
  async until(done: () => boolean, ms = 5000, what = 'the stream'): Promise<void> {
    const deadline = Date.now() + ms;
    while (!done()) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what}; events: ${JSON.stringify(this.events)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 200));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** The change events (created, updated, deleted, reset), without id-only blocks. */
  changes(): {
    id: string | undefined;
    type: string;
    data: { id: unknown; record?: Record<string, unknown> };
  }[] {
    return this.events
      .filter((event) => event.event !== undefined)
      .map((event) => ({ id: event.id, type: event.event!, data: JSON.parse(event.data) as never }));
  }

  /** Wait for `count` change events in all. */
  async changesCount(count: number, ms = 5000) {
    await this.until(() => this.changes().length >= count, ms, `${count} change events`);
    return this.changes();
  }

  close(): void {
    this.request.destroy();
  }

  /** Stop reading (the bytes stay in the socket's buffers, then the server's). */
  pause(): void {
    this.message?.pause();
  }

  resume(): void {
    this.message?.resume();
  }
}
