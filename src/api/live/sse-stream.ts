import type { ServerResponse } from 'node:http';
import { PassThrough } from 'node:stream';
import type { LiveEvent } from './events.ts';

/** An event as one SSE block. */
export function eventFrame(event: LiveEvent): string {
  return `id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(event.data)}\n\n`;
}

/**
 * One Server-Sent Events response body. Writes go to a PassThrough the HTTP layer pipes to the
 * socket; what the client has not taken yet stays in that stream and in the response, and once they
 * hold more than `bufferBytes` after a write, the client has fallen behind: the stream is destroyed
 * (the connection ends; the client reconnects with Last-Event-ID), never buffered without bound.
 */
export class SseStream {
  readonly body = new PassThrough();
  /** The response `body` is piped into as it is (`pipedInto`), or null while that is not known. */
  private response: ServerResponse | null = null;
  private ended = false;
  private readonly onEnd: (() => void)[] = [];

  constructor(
    private readonly bufferBytes: number,
    /** Bytes the response itself still holds for the client (past this stream), if it can tell. */
    private readonly heldByResponse: () => number = () => 0,
  ) {
    // The client went away (or the stream was destroyed): every end listener runs once.
    const finish = () => this.finish();
    this.body.once('close', finish);
    this.body.once('error', finish);
  }

  get isOpen(): boolean {
    return !this.ended;
  }

  /**
   * The HTTP layer piped `body` itself into `response` (no hook replaced or wrapped it): while
   * `body` holds nothing, a write goes to the response directly, in the same order, without the
   * PassThrough's work per write (a delivery writes to every stream of a feed).
   */
  pipedInto(response: ServerResponse): void {
    this.response = response;
  }

  /** Run `listener` once when the stream ends, however it ends. */
  whenEnded(listener: () => void): void {
    if (this.ended) listener();
    else this.onEnd.push(listener);
  }

  event(event: LiveEvent): void {
    this.write(eventFrame(event));
  }

  /**
   * Frames already serialized and encoded once (`eventFrame`), the same bytes shared by every
   * stream of a group: one write, no copy per stream.
   */
  frames(bytes: Buffer): void {
    if (bytes.length > 0) this.write(bytes);
  }

  reset(position: number): void {
    this.write(`id: ${position}\nevent: reset\ndata: {}\n\n`);
  }

  /** The position to resume from, without an event (an SSE block with an id and no data). */
  position(position: number): void {
    this.write(`id: ${position}\n\n`);
  }

  comment(text: string): void {
    this.write(`: ${text}\n\n`);
  }

  /** End the stream, telling the client when to reconnect (milliseconds) if given. */
  close(retryMs?: number): void {
    if (this.ended) return;
    if (retryMs !== undefined) this.body.write(`retry: ${retryMs}\n\n`);
    this.body.end();
    this.finish();
  }

  /** Bytes written and not yet taken by the client's connection. */
  private held(): number {
    return this.body.writableLength + this.body.readableLength + this.heldByResponse();
  }

  private write(chunk: string | Buffer): void {
    if (this.ended) return;
    const response = this.response;
    if (
      response !== null &&
      response.headersSent &&
      !response.writableEnded &&
      !response.destroyed &&
      this.body.readableLength === 0 &&
      this.body.writableLength === 0
    )
      response.write(chunk);
    else this.body.write(chunk);
    // The response writes to the socket on the next tick: what it and this stream hold now is what
    // the client has not taken, this batch included.
    if (this.held() > this.bufferBytes) this.cut();
  }

  /** A slow consumer: cut, not buffered. */
  private cut(): void {
    this.body.destroy();
    this.finish();
  }

  private finish(): void {
    if (this.ended) return;
    this.ended = true;
    for (const listener of this.onEnd.splice(0)) listener();
  }
}
