// Dialect-independent: a pure parser; `npm test` runs it with the first database only.
// The typed client's Server-Sent Events parser against the WHATWG event stream rules: line breaks
// of every kind (also split between chunks), fields, comments, `id` persistence and `retry`.
import fc from 'fast-check';
import { createParser } from 'eventsource-parser';
import { describe, expect, it } from 'vitest';
import { sseParser, type SseMessage } from '../../src/client/sse.ts';

/** Every message of `chunks` fed one after the other. */
function parse(chunks: string[], parser = sseParser()): { messages: SseMessage[]; retry: number | null } {
  const messages: SseMessage[] = [];
  let retry: number | null = null;
  for (const chunk of chunks) {
    const result = parser.feed(chunk);
    messages.push(...result.messages);
    retry = result.retry ?? retry;
  }
  return { messages, retry };
}

describe('sseParser', () => {
  it('reads events with type, id and data, and keeps the id for the messages after it', () => {
    const { messages } = parse([
      'event: created\nid: 7\ndata: {"id":"a"}\n\n',
      'event: deleted\ndata: {"id":"b"}\n\n',
      'data: plain\n\n',
    ]);
    expect(messages).toEqual([
      { event: 'created', id: '7', data: '{"id":"a"}' },
      { event: 'deleted', id: '7', data: '{"id":"b"}' },
      { event: 'message', id: '7', data: 'plain' },
    ]);
  });

  it('takes LF, CRLF and CR line breaks, also when a chunk ends between CR and LF', () => {
    const { messages } = parse(['data: one\r', '\n\r', '\ndata: two\r\rdata: three\n', '\n']);
    expect(messages.map((m) => m.data)).toEqual(['one', 'two', 'three']);
  });

  it('splits fields and values anywhere between chunks', () => {
    const text = 'event: updated\nid: 12\ndata: {"id":"x","record":{"title":"hé"}}\n\n';
    for (let cut = 1; cut < text.length; cut += 1) {
      const { messages } = parse([text.slice(0, cut), text.slice(cut)]);
      expect(messages, `cut at ${cut}`).toEqual([
        { event: 'updated', id: '12', data: '{"id":"x","record":{"title":"hé"}}' },
      ]);
    }
  });

  it('joins data lines with LF; takes one space after the colon, no more', () => {
    const { messages } = parse(['data:a\ndata:  b\ndata\n\n']);
    expect(messages[0]!.data).toBe('a\n b\n');
  });

  it('skips comments (heartbeats), unknown fields and a blank line without data, but reports a line', () => {
    const parser = sseParser();
    const heartbeat = parser.feed(': heartbeat\n\n');
    expect(heartbeat).toEqual({ messages: [], retry: null, sawLine: true });
    expect(parse(['foo: bar\nevent: reset\n\n'], parser).messages).toEqual([]);
    expect(parser.feed('partial line').sawLine).toBe(false);
  });

  it('reads retry only as digits; ignores an id with NUL', () => {
    expect(parse(['retry: 2500\n']).retry).toBe(2500);
    expect(parse(['retry: 2.5\n', 'retry: soon\n']).retry).toBeNull();
    const parser = sseParser('4');
    expect(parse(['id: 5\0\ndata: x\n\n'], parser).messages[0]!.id).toBe('4');
  });

  it('drops a leading BOM and a message cut off by the end of its connection', () => {
    const parser = sseParser();
    expect(parse(['\uFEFFdata: first\n\n', 'id: 9\ndata: cut'], parser).messages).toEqual([
      { event: 'message', id: '', data: 'first' },
    ]);
    // The cut message's id was never dispatched: a resume must not skip that message.
    expect(parser.lastEventId).toBe('');
    parser.restart();
    expect(parse(['data: after\n\n'], parser).messages).toEqual([
      { event: 'message', id: '', data: 'after' },
    ]);
    // An id with a blank line and no data still moves the position.
    parse(['id: 10\n\n'], parser);
    expect(parser.lastEventId).toBe('10');
  });

  it('agrees with eventsource-parser on random streams cut into random chunks', () => {
    const value = fc.stringMatching(/^[a-z0-9 :{}"]{0,8}$/);
    const line = fc.oneof(
      fc.constantFrom('', '', 'event', 'data', 'id', ':', 'retry'),
      fc
        .tuple(fc.constantFrom('event', 'data', 'id', 'retry', 'other', ''), value)
        .map(([f, v]) => `${f}:${v}`),
      fc.tuple(fc.constantFrom('data', 'id', 'retry'), fc.nat(99_999)).map(([f, n]) => `${f}: ${n}`),
    );
    const stream = fc.tuple(
      fc.array(fc.tuple(line, fc.constantFrom('\n', '\r', '\r\n')), { maxLength: 30 }),
      fc.array(fc.nat(), { maxLength: 10 }),
    );
    fc.assert(
      fc.property(stream, ([lines, cuts]) => {
        const text = lines.map(([l, end]) => l + end).join('');
        const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
        const chunks = [0, ...points].map((from, i, all) => text.slice(from, all[i + 1] ?? text.length));

        const theirs: SseMessage[] = [];
        let theirId = '';
        let theirRetry: number | null = null;
        const reference = createParser({
          onId: (id) => (theirId = id),
          onEvent: (event) => theirs.push({ event: event.event || 'message', data: event.data, id: theirId }),
          onRetry: (ms) => (theirRetry = ms),
        });
        const ours = sseParser();
        const mine: SseMessage[] = [];
        let myRetry: number | null = null;
        for (const chunk of chunks) {
          reference.feed(chunk);
          const result = ours.feed(chunk);
          mine.push(...result.messages);
          myRetry = result.retry ?? myRetry;
        }
        expect(mine).toEqual(theirs);
        expect(myRetry).toBe(theirRetry);
        // Id-only blocks count; a block cut off by the end of the text does not, in either.
        expect(ours.lastEventId).toBe(theirId);
      }),
      { numRuns: 500 },
    );
  });
});
