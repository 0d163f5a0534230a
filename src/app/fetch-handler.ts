import { createServer, type CitadelServer, type CreateServerOptions } from './server.ts';
import type { CallerSource, ResolvedCaller } from '../embed/caller.ts';

/**
 * Citadel as a Fetch-API handler (Hono, Next.js route handlers, Bun and Deno `serve`):
 * `(request, context?) => Promise<Response>`, plus `ready()`, `getCaller()` and `close()`.
 */
export interface CitadelFetchHandler {
  (request: Request, context?: unknown): Promise<Response>;
  /** Resolves once the database is migrated and the app is ready (rejects with the start-up error). */
  ready(): Promise<CitadelServer>;
  /** Who is calling (session cookie or bearer token): see `getCaller()`. */
  getCaller(request: CallerSource): Promise<ResolvedCaller | null>;
  /** Closes the database, the mail transport and Redis; later requests are refused (503). */
  close(): Promise<void>;
}

/** `createServer()`'s options. Set `basePath` to the path the host mounts Citadel under (`/auth`). */
export type CreateFetchHandlerOptions = CreateServerOptions;

/**
 * Citadel for the Fetch API. Start-up (database, migrations) begins at once and every request
 * waits for it; `await handler.ready()` surfaces a start-up error early. A Fetch Request carries
 * no client address: pass it as the second argument (`handler(request, { clientAddress })`), or
 * let Bun's and Deno's `serve` pass theirs; without one, X-Forwarded-For is trusted only by hop
 * count (`trustProxy: 1`), never by address. Close it with `await handler.close()`.
 */
export function createFetchHandler(options: CreateFetchHandlerOptions = {}): CitadelFetchHandler {
  const starting = createServer(options);
  // Reported by ready() and by every request; not an unhandled rejection meanwhile.
  starting.catch(() => undefined);
  let closed = false;
  const handler = (async (request: Request, context?: unknown): Promise<Response> => {
    if (closed) return Response.json({ status: 'error', message: 'Service unavailable.' }, { status: 503 });
    const server = await starting;
    return server.fetch(request, context);
  }) as CitadelFetchHandler;
  handler.ready = () => starting;
  handler.getCaller = async (request) => (await starting).getCaller(request);
  handler.close = async () => {
    closed = true;
    const server = await starting.catch(() => undefined);
    await server?.close();
  };
  return handler;
}
