/**
 * A Server-Sent Events parser (the WHATWG HTML "event stream interpretation"): text in, messages
 * out. Kept free of any import; `live.ts` feeds it the decoded body of a `text/event-stream`.
 * A closure rather than a class: its state minifies to short names (the client ships to browsers).
 */

/** One dispatched message: its `event` (default `message`), its `data` lines joined, its `id`. */
export interface SseMessage {
  event: string;
  data: string;
  /** The last event ID after this message (an `id:` field stays in force until the next one). */
  id: string;
}

/** What a chunk of the stream held: its messages, and the last `retry:` in it (milliseconds). */
export interface SseChunk {
  messages: SseMessage[];
  retry: number | null;
  /** Whether any line arrived (a heartbeat comment counts): the connection is alive. */
  sawLine: boolean;
}

/** A parser of one stream, reused across its reconnections. */
export interface SseParser {
  feed(text: string): SseChunk;
  /** A new connection: a message cut off by the old one is dropped, its `id` with it. */
  restart(): void;
  /**
   * The id of the last dispatched message (an `id:` line counts once its message's blank line
   * arrived): what a reconnection resumes from.
   */
  readonly lastEventId: string;
}

export function sseParser(lastEventId = ''): SseParser {
  let pending = '';
  let idBuffer = lastEventId;
  let data = '';
  let hasData = false;
  let event = '';
  let started = false;
  // A chunk ended in CR: an LF opening the next chunk belongs to that line break.
  let afterCr = false;

  function line(text: string, chunk: SseChunk): void {
    if (text === '') {
      // Dispatch: the id counts even for a message without data.
      lastEventId = idBuffer;
      if (hasData) chunk.messages.push({ event: event || 'message', data, id: lastEventId });
      data = '';
      hasData = false;
      event = '';
      return;
    }
    if (text.startsWith(':')) return; // a comment: the server's heartbeat
    const colon = text.indexOf(':');
    const field = colon === -1 ? text : text.slice(0, colon);
    let value = colon === -1 ? '' : text.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') event = value;
    else if (field === 'data') {
      data = hasData ? `${data}\n${value}` : value;
      hasData = true;
    } else if (field === 'id') {
      if (!value.includes('\0')) idBuffer = value;
    } else if (field === 'retry' && /^[0-9]+$/.test(value)) chunk.retry = Number(value);
    // Any other field is ignored.
  }

  return {
    get lastEventId() {
      return lastEventId;
    },
    restart() {
      pending = data = event = '';
      idBuffer = lastEventId;
      hasData = started = afterCr = false;
    },
    feed(text) {
      const chunk: SseChunk = { messages: [], retry: null, sawLine: false };
      if (!started && text !== '') {
        started = true;
        if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      }
      if (afterCr && text.startsWith('\n')) text = text.slice(1);
      afterCr = false;
      const buffer = pending + text;
      let start = 0;
      for (;;) {
        const cr = buffer.indexOf('\r', start);
        const lf = buffer.indexOf('\n', start);
        const end = cr === -1 ? lf : lf === -1 ? cr : Math.min(cr, lf);
        if (end === -1) break;
        chunk.sawLine = true;
        line(buffer.slice(start, end), chunk);
        start = end + 1;
        if (buffer[end] === '\r') {
          if (end + 1 === buffer.length) afterCr = true;
          else if (buffer[end + 1] === '\n') start += 1;
        }
      }
      pending = buffer.slice(start);
      return chunk;
    },
  };
}
