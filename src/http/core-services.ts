import type { Kysely } from 'kysely';
import type { CitadelConfig } from '../config/types.ts';
import type { Database } from '../db/schema.ts';
import type { Dialect } from '../db/url.ts';
import type { Clock } from '../core/clock.ts';
import type { SecretBox } from '../core/crypto.ts';
import type { Mailer } from '../mail/mailer.ts';
import type { EmailSender } from '../mail/emails.ts';
import type { SessionStore } from './sessions/store.ts';
import type { RateLimiter } from './limits/rate-limit.ts';
import type { ServedPaths } from './html/served-paths.ts';
import type { PageRenderer } from './response/respond.ts';
import type { Languages } from '../core/i18n/languages.ts';

/**
 * The services of the core, made once at start-up (`src/app/services.ts`): what every layer above
 * may use. Declared once here; the Fastify decorators (`http/fastify-types.ts`) and the plain
 * services object domain code takes (`auth/core/services.ts`) both extend it.
 */
export interface CoreServices {
  config: CitadelConfig;
  db: Kysely<Database>;
  dialect: Dialect;
  clock: Clock;
  secrets: SecretBox;
  sessions: SessionStore;
  rateLimiter: RateLimiter;
  mailer: Mailer;
  /** Citadel's own messages by kind (the application's `emails` replacements, else the defaults). */
  emails: EmailSender;
}

/** The core services with what the HTTP layer adds while routes are registered. */
export interface HttpServices extends CoreServices {
  /** The GET paths the server answers, for pages that link only to what exists. */
  servedPaths: ServedPaths;
  /** Built-in page renderer to the application's or a plugin's replacement (`pages`). */
  pageReplacements: ReadonlyMap<PageRenderer, PageRenderer>;
  /** The server's languages: the catalogs of the core and the plugins, with the application's `locales`. */
  languages: Languages;
}
