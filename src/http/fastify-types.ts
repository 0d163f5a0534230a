import type { Session } from './sessions/session.ts';
import type { PageRenderer } from './response/respond.ts';
import type { HttpServices } from './core-services.ts';
import './security/caller.ts';

/*
 * The core services are also decorators of the Fastify instance, for the HTTP layer and the
 * resource API (`request.server.db`); domain code takes the plain `CitadelServices` object
 * (`src/auth/core/services.ts`) instead, which the composition root builds.
 */
declare module 'fastify' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- merged into Fastify's own
  interface FastifyInstance extends HttpServices {}
  interface FastifyRequest {
    session: Session;
  }
  interface FastifyContextConfig {
    /** The auth envelope's `action` for this route's responses and errors. */
    action?: string;
    /** The page a form client sees for this route (and again, with errors, after a failed post). */
    page?: PageRenderer;
    /** What the route's page shows besides the request's outcome: loaded here, so pages stay pure. */
    pageProps?: (request: FastifyRequest) => unknown;
    /** Skip the CSRF check (only for routes that change nothing). */
    csrfExempt?: boolean;
    /** Any origin may call it without credentials: a cross-site request is not refused for being one. */
    cors?: boolean;
    /** Never reads a session or a caller (health, readiness, metrics): none is loaded for it. */
    sessionless?: boolean;
    /**
     * The route reads a JSON body only (`src/http/request/json-only.ts`): any other body, or a form
     * client, is answered 415 before the handler (and before the CSRF check).
     */
    jsonOnly?: boolean;
    /**
     * The route's parameters that carry a secret (a token in the path, `code` and `state` of an
     * OAuth callback): path parameters of its URL pattern (`/magic-link/verify/:token` declares
     * `'token'`) and query names. Log lines show `[redacted]` in their place
     * (`src/http/security/logging.ts`); this declaration is the one place a route says so.
     */
    secrets?: readonly string[];
    /**
     * The route serves a JSON resource (a JWK Set, the route list): JSON for any `Accept`, never a
     * page or a redirect (`src/http/request/negotiation.ts`).
     */
    alwaysJson?: boolean;
  }
}
