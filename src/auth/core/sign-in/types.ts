import type { CitadelServices } from '../services.ts';
import type { RequestContext } from '../request-context.ts';
import type { UserRecord } from '../users.ts';
import type { SafeHtml } from '../../../core/html.ts';
import type { Text } from '../../../core/i18n/catalog.ts';

/** Why the pipeline runs: after any sign-in (password, magic link, social) or after registration. */
export type PipelinePurpose = 'login' | 'register';

/** What each method of a pipeline action receives. */
export interface ActionContext {
  /** The request, as plain data (`ip`, `userAgent`, `session`, `cookies`, ...). */
  request: RequestContext;
  /** Citadel's services (`services.db`, `services.mailer`, ...). */
  services: CitadelServices;
  user: UserRecord;
  purpose: PipelinePurpose;
  /**
   * This action's own state inside the pending context (for example an emailed code's HMAC and
   * expiry). JSON-serialisable; changes are saved with the session. Never put a plain secret here.
   */
  state: Record<string, unknown>;
  /**
   * Random id of this pending context: the key for anything that must be shared between processes
   * or concurrent requests (the session copy of `state` is last-writer-wins), e.g. rate-limit keys.
   */
  contextId: string;
}

/**
 * A post-sign-in step. Built-ins: email_2fa, email_activation, two_factor; applications register
 * their own (config `actions`) and list their ids in AUTH_LOGIN_ACTIONS / AUTH_REGISTER_ACTIONS.
 */
export interface PipelineAction {
  id: string;
  /** Heading of the action page (a catalog text is written in the reader's language). */
  label: Text;
  /** Does the action apply to this user now? Default: yes. */
  isPendingFor?(ctx: ActionContext): Promise<boolean> | boolean;
  /** The action became current: for example, email the first code. */
  start?(ctx: ActionContext): Promise<void>;
  /** Extra `data` for GET /action/show, beside `action` and `email`. */
  show?(ctx: ActionContext): Promise<Record<string, unknown>> | Record<string, unknown>;
  /** POST /action/challenge: for example, send a fresh code. */
  challenge?(ctx: ActionContext): Promise<Record<string, unknown> | void>;
  /**
   * POST /action/handle. Resolve true when the proof is good, false when it is wrong (404, counted
   * towards the attempt limit); throw a ValidationError (422) for missing or malformed fields.
   */
  handle(ctx: ActionContext, body: Record<string, unknown>): Promise<boolean>;
  /** After a good proof, before the next action: for example, activate the account. */
  complete?(ctx: ActionContext): Promise<void>;
  /** The form fields of the action page (inside the form that posts to /action/handle). */
  renderFields?(ctx: ActionContext): SafeHtml;
  /**
   * Runs after the configured actions on every sign-in where it is pending, without being listed
   * in AUTH_LOGIN_ACTIONS / AUTH_REGISTER_ACTIONS (the factors plugin's `two_factor`).
   */
  automatic?: boolean;
}

declare module '../../../config/types.ts' {
  interface ExtensionSettings {
    /** The application's own post-sign-in actions, listed by id in AUTH_*_ACTIONS. */
    actions?: PipelineAction[];
  }
}

/** What a sign-in attempt led to. */
export type SignInResult = { signedIn: true } | { signedIn: false; action: string };
