import type { Kysely } from 'kysely';
import type { CitadelConfig } from '../../config/types.ts';
import type { Database } from '../../db/schema.ts';
import type { Dialect } from '../../db/url.ts';
import type { Clock } from '../../core/clock.ts';
import type { SecretBox } from '../../core/crypto.ts';
import type { SessionStore } from '../../http/sessions/store.ts';
import type { RateLimiter } from '../../http/limits/rate-limit.ts';
import type { Mailer } from '../../mail/mailer.ts';
import type { EmailSender } from '../../mail/emails.ts';
import type { ServedPaths } from '../../http/html/served-paths.ts';
import type { PageRenderer } from '../../http/response/respond.ts';
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
export interface CitadelServices {
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
  /** The server's logger. */
  log: Log;
}
