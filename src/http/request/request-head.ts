import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { HttpError } from '../../core/errors.ts';

/**
 * The request head (request line and headers) Node reads before it gives up: 64 KiB, four times
 * Node's default. A list URL of nested filters within the published limits (3 levels, 30
 * conditions, 100 values per `in` list) fits, so it reaches Citadel's own answer.
 */
export const MAX_REQUEST_HEAD_BYTES = 64 * 1024;

/** The longest request target Citadel reads; a longer one is 414 URI Too Long, decided here. */
export const MAX_URL_LENGTH = 32 * 1024;

const URL_TOO_LONG = `The request URL is too long (at most ${MAX_URL_LENGTH.toLocaleString('en')} characters).`;

export class UriTooLongError extends HttpError {
  override name = 'UriTooLongError';
  constructor() {
    super(414, URL_TOO_LONG);
  }
}

/** onRequest step: a request target over MAX_URL_LENGTH is refused before anything reads it. */
export function refuseLongUrls(request: FastifyRequest): void {
  if (request.url.length > MAX_URL_LENGTH) throw new UriTooLongError();
}

/** RFC 9110 reason phrases where Node's table still has the older ones. */
const TITLES: Record<number, string> = { 413: 'Content Too Large' };

const DETAILS: Record<number, string> = {
  400: 'The request could not be read.',
  408: 'The request took too long to arrive.',
  414: URL_TOO_LONG,
  431: `The request line and headers are too large (at most ${MAX_REQUEST_HEAD_BYTES / 1024} KiB).`,
};

/** Which answer a parser error of Node's gets (HPE_* codes come from llhttp). */
function statusOf(code: string | undefined): number {
  if (code === 'HPE_HEADER_OVERFLOW') return 431;
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return 408;
  return 400;
}

/** An RFC 9457 problem-details body for a request refused before routing: it names no part of it. */
function earlyProblem(status: number): { title: string; body: string } {
  const title = TITLES[status] ?? STATUS_CODES[status] ?? 'Error';
  return {
    title,
    body: JSON.stringify({ type: 'about:blank', title, status, detail: DETAILS[status] ?? `${title}.` }),
  };
}

/**
 * The answer to a request Node's HTTP parser refused before Fastify saw it (a head over
 * MAX_REQUEST_HEAD_BYTES, a malformed request line, a timeout): the status, the same security
 * headers as every other answer, `Cache-Control: no-store`, and an RFC 9457 problem-details
 * body. There is no request to negotiate with, so the body is always problem details; it names
 * no part of the request (the URL may hold a secret).
 */
export function earlyAnswer(status: number, securityHeaders: Readonly<Record<string, string>>): string {
  const { title, body } = earlyProblem(status);
  const headers: [string, string][] = [
    ...Object.entries(securityHeaders),
    ['Content-Type', 'application/problem+json'],
    ['Content-Length', String(Buffer.byteLength(body))],
    ['Cache-Control', 'no-store'],
    ['Connection', 'close'],
  ];
  return `HTTP/1.1 ${status} ${title}\r\n${headers.map(([name, value]) => `${name}: ${value}`).join('\r\n')}\r\n\r\n${body}`;
}

/**
 * Fastify's `frameworkErrors` for the server Citadel creates: the router's refusals before any
 * route or hook runs (a path segment whose percent-encoding does not decode: 400; a path
 * parameter longer than the URL limit: 414). Fastify's default wrote the decoded path back in
 * its message, without the security headers. Here they get the answer of a request Node refused:
 * problem details that name no part of the URL.
 */
export function citadelFrameworkErrors(securityHeaders: Readonly<Record<string, string>>) {
  return function frameworkErrors(
    error: Error & { code?: string },
    request: FastifyRequest,
    reply: FastifyReply,
  ) {
    const status = error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 414 : 400;
    request.log.debug({ code: error.code, status }, 'request refused by the router');
    void reply
      .code(status)
      .headers({ ...securityHeaders, 'cache-control': 'no-store' })
      .type('application/problem+json')
      .send(earlyProblem(status).body);
  };
}

/**
 * Fastify's `clientErrorHandler` for the server Citadel creates: Fastify's default wrote a bare
 * JSON answer without the security headers. The log line holds the parser's code only: the error
 * Node passes carries the raw request bytes (`rawPacket`), URL, cookie and Authorization included.
 */
export function citadelClientErrorHandler(securityHeaders: Readonly<Record<string, string>>) {
  return function clientErrorHandler(
    this: FastifyInstance,
    error: Error & { code?: string },
    socket: Socket,
  ) {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const status = statusOf(error.code);
    this.log.debug({ code: error.code, status }, 'request refused by the HTTP parser');
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    socket.end(earlyAnswer(status, securityHeaders));
    // Whatever the client still sends is read and dropped, so that closing does not reset the
    // connection (and lose the answer) while unread bytes wait; a client that never stops is cut.
    socket.resume();
    setTimeout(() => socket.destroy(), 2_000).unref();
  };
}
