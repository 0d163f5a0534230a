import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { SseStream } from '../../src/api/live/sse-stream.ts';

// SseStream over a real socket: a write goes to the response directly only while the body holds
// nothing, so the client reads every block in the order written, whatever backpressure did; a
// client that stops reading is still cut once it holds more than bufferBytes.

const servers: http.Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A server whose one response is an SseStream piped as Fastify does; `use` gets the stream. */
async function serve(
  bufferBytes: number,
  use: (stream: SseStream, response: http.ServerResponse) => void,
  pipeThrough?: PassThrough,
): Promise<string> {
  const server = http.createServer((_request, response) => {
    const stream = new SseStream(bufferBytes, () => response.writableLength);
    response.once('pipe', (source) => {
      if (source === stream.body) stream.pipedInto(response);
    });
    response.setHeader('content-type', 'text/event-stream');
    stream.comment('connected');
    if (pipeThrough) stream.body.pipe(pipeThrough).pipe(response);
    else stream.body.pipe(response);
    use(stream, response);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

function readAll(url: string, pauseMs = 0): Promise<{ text: string; complete: boolean }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, (response) => {
        let text = '';
        response.setEncoding('utf8');
        if (pauseMs > 0) {
          response.pause();
          setTimeout(() => response.resume(), pauseMs);
        }
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ text, complete: true }));
        response.on('error', () => resolve({ text, complete: false }));
        response.on('aborted', () => resolve({ text, complete: false }));
      })
      .on('error', reject);
  });
}

/** Event blocks 0..n-1, alternating strings and shared Buffers, some large enough to fill the socket. */
function writeMany(stream: SseStream, n: number): string {
  let expected = ': connected\n\n';
  for (let i = 0; i < n; i += 1) {
    const block = `id: ${i}\nevent: created\ndata: ${JSON.stringify({ id: i, pad: 'x'.repeat(i % 7 === 0 ? 40_000 : 20) })}\n\n`;
    if (i % 2 === 0) stream.frames(Buffer.from(block));
    else stream.comment(block.slice(0, -2));
    expected += i % 2 === 0 ? block : `: ${block.slice(0, -2)}\n\n`;
  }
  return expected;
}

describe('SseStream', () => {
  it('delivers every block in order through backpressure, writing to the response directly when it may', async () => {
    let expected = '';
    let throughBody = 0;
    const url = await serve(16 * 1024 * 1024, (stream) => {
      const write = stream.body.write.bind(stream.body);
      stream.body.write = ((...args: Parameters<typeof write>) => {
        throughBody += 1;
        return write(...args);
      }) as typeof stream.body.write;
      // After the headers went out (the first block flowed through the body), in bursts.
      setTimeout(() => {
        expected = writeMany(stream, 300);
        setTimeout(() => {
          const tail = `id: 300\nevent: created\ndata: {}\n\n`;
          stream.frames(Buffer.from(tail));
          expected += tail;
          stream.close(2000);
          expected += 'retry: 2000\n\n';
        }, 20);
      }, 50);
    });
    const { text, complete } = await readAll(url, 200);
    expect(complete).toBe(true);
    expect(text).toBe(expected);
    // The blocks went to the response directly (the body held nothing once the headers were out),
    // the retry hint through the body, after them.
    expect(throughBody).toBeGreaterThan(0);
    expect(throughBody).toBeLessThan(302);
  });

  it('writes through the body only when the response is fed by another stream (a hook wrapped it)', async () => {
    let expected = '';
    const url = await serve(
      16 * 1024 * 1024,
      (stream) => {
        setTimeout(() => {
          expected = writeMany(stream, 50);
          stream.close();
        }, 50);
      },
      new PassThrough(),
    );
    const { text } = await readAll(url);
    expect(text).toBe(expected);
  });

  it('cuts a client that stops reading once it holds more than bufferBytes', async () => {
    let cut = false;
    const url = await serve(256 * 1024, (stream) => {
      stream.whenEnded(() => (cut = true));
      setTimeout(() => {
        const block = Buffer.from(
          `id: 1\nevent: created\ndata: ${JSON.stringify({ pad: 'x'.repeat(64 * 1024) })}\n\n`,
        );
        // The client reads nothing: the socket's buffers fill, then what the response holds grows.
        const timer = setInterval(() => {
          if (!stream.isOpen) clearInterval(timer);
          else stream.frames(block);
        }, 1);
      }, 50);
    });
    const request = http.get(url, (response) => response.pause());
    const deadline = Date.now() + 10_000;
    while (!cut && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    request.destroy();
    expect(cut).toBe(true);
  });
});
