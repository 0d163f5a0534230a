import type { HttpServices } from '../../http/core-services.ts';

/** Where Citadel logs (the server's logger; a request's carries its request id). */
export interface Log {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

/**
 * Citadel's services: one plain object built once by the composition root (`src/app/mount.ts`) and
 * handed to domain code (`request.services`, `input.services`, a plugin's listeners). Nothing here
 * knows the HTTP framework. The auth core's services (users, passwords, remember-me, tokens, the
 * registries and listeners) are added by declaration merging in `plugin-host.ts`, beside the code
 * that builds them, so that this file imports only the core.
 */
export interface CitadelServices extends HttpServices {
  /** The server's logger. */
  log: Log;
  /**
   * One request through this server's own pipeline, in process (no socket): routing, sessions,
   * CSRF, validation, hooks and the resource API, exactly as for a client. The URL's path and query
   * are Citadel's own (without the path it is mounted at); its origin is ignored. The request
   * comes from the loopback address and carries only the headers it is given (a session cookie
   * to act as a visitor).
   */
  fetch(request: Request): Promise<Response>;
}
