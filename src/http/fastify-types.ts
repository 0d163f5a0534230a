import type { Kysely } from 'kysely';
import type { Session } from './sessions/session.ts';
import type { SessionStore } from './sessions/store.ts';
import type { PageRenderer } from './response/respond.ts';
import type { RateLimiter } from './limits/rate-limit.ts';
import type { CitadelConfig } from '../config/types.ts';
import type { Database } from '../db/schema.ts';
import type { Dialect } from '../db/url.ts';
import type { Clock } from '../core/clock.ts';
import type { SecretBox } from '../core/crypto.ts';
import type { Mailer } from '../mail/mailer.ts';
import type { ServedPaths } from './html/served-paths.ts';
import type { EmailSender } from '../mail/emails.ts';
import './security/caller.ts';

/*
 * The core services are also decorators of the Fastify instance, for the HTTP layer and the
 * resource API (`request.server.db`); domain code takes the plain `CitadelServices` object
 * (`src/auth/core/services.ts`) instead, which the composition root builds.
 */
declare module 'fastify' {
  interface FastifyInstance {
    config: CitadelConfig;
    db: Kysely<Database>;
    dialect: Dialect;
    clock: Clock;
    secrets: SecretBox;
    sessions: SessionStore;
    rateLimiter: RateLimiter;
    mailer: Mailer;
    /** Citadel's own messages by kind: `emails.send('resetPassword', props, defaults)`. */
    emails: EmailSender;
    /** The GET paths the server answers, for pages that link only to what exists. */
    servedPaths: ServedPaths;
    /** Built-in page renderer to the application's or a plugin's replacement (`pages`). */
    pageReplacements: ReadonlyMap<PageRenderer, PageRenderer>;
  }
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
     * (`src/http/security/logging.ts`); this declaration is the one place a route says so (contract 14).
     */
    secrets?: readonly string[];
  }
}
