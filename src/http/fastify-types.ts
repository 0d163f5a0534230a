import type { CitadelServices } from '../services.ts';
import type { Session } from './sessions/session.ts';
import type { Caller } from '../auth/core/caller.ts';
import type { PageRenderer } from './respond.ts';

declare module 'fastify' {
  interface FastifyInstance {
    citadel: CitadelServices;
  }
  interface FastifyRequest {
    session: Session;
    /** The signed-in user (session) or the owner of the bearer token; null for anonymous callers. */
    caller: Caller | null;
  }
  interface FastifyContextConfig {
    /** The auth envelope's `action` for this route's responses and errors. */
    action?: string;
    /** The page a form client sees for this route (and again, with errors, after a failed post). */
    page?: PageRenderer;
    /** Skip the CSRF check (only for routes that change nothing). */
    csrfExempt?: boolean;
  }
}
