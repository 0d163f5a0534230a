import type { Caller } from '../../http/security/caller.ts';
import type { ClientKind } from '../../http/request/negotiation.ts';
import type { Session } from '../../http/sessions/session.ts';
import type { CitadelServices, Log } from './services.ts';
import type { Language } from '../../core/i18n/catalog.ts';

/** A cookie the answer sets (`value`), or clears (`value: null`). */
export interface CookieWrite {
  name: string;
  value: string | null;
  /** Seconds; absent for a browser-session cookie. */
  maxAge?: number;
}

/**
 * One request as domain code sees it: plain data, the session, and what the
 * answer must write. Services, actions, factors, pages and the sign-in take this, never the HTTP
 * framework's request or reply; the HTTP adapter (`endpoint-routes.ts`) builds it, and commits what
 * it collected (the session with its events, then `cookieWrites`) before the answer is sent.
 * A declared endpoint's handler input is one (`EndpointInput` extends it).
 */
export interface RequestContext {
  readonly services: CitadelServices;
  /** The client's address (after `TRUST_PROXY`). */
  readonly ip: string;
  readonly userAgent: string | null;
  /** The request's cookies, by name. */
  readonly cookies: Readonly<Record<string, string | undefined>>;
  /** The `Authorization` header, if the request has one. */
  readonly authorization: string | undefined;
  /** JSON, SPA or form client. */
  readonly client: ClientKind;
  readonly method: string;
  /** The path as Citadel serves it (without the mount path and the query string). */
  readonly path: string;
  /**
   * For a form client's detour (sudo): the Citadel path to come back to, that is this page for a
   * GET, the same-origin Referer for anything else; null when there is none.
   */
  readonly returnPath: string | null;
  /** The submitted scalar fields minus anything secret, for re-filling a form after a detour. */
  readonly refillableInput: Record<string, string>;
  /** This request's server-side session (stored by the adapter when it changed). */
  readonly session: Session;
  /** The session's user or the bearer token's owner; a sign-in or sign-out changes it. */
  caller: Caller | null;
  /** The request's logger (with its request id). */
  readonly log: Log;
  /**
   * The reader's language (account `locale`, `?lang=`, cookie, `Accept-Language`, default): a
   * catalog's `in(language)`, and the fallback language of an email to a recipient without one.
   */
  readonly language: Language;
  /** Cookies this answer writes, in order; the adapter sets them on the answer. */
  readonly cookieWrites: CookieWrite[];
  /**
   * Let this answer's page send its forms to `uri`'s origin (or private-use scheme) too: a sign-in
   * whose last redirect leaves for another application (an OAuth client's redirect URI), which a
   * browser checks against the page's CSP `form-action`.
   */
  allowFormTarget(uri: string): void;
  /** A sign-in of this request: the RFC 8176 methods it proved (`pwd`, `otp`, `hwk`, `mfa`, `email`). */
  signInAmr?: readonly string[];
  /**
   * A sign-in listener's Citadel path to send the browser to once signed in, instead of the sign-in's
   * own landing page (an authorization request waiting for this sign-in).
   */
  signInContinue?: string;
  /** The sign-in facts read for one user during this request (see `signInFactsFor`). */
  signInFactsRead: { userId: number; facts: Record<string, boolean> } | null;
}

/** Set (or, with null, clear) a cookie of this request's answer. */
export function setCookie(
  request: RequestContext,
  name: string,
  value: string | null,
  maxAge?: number,
): void {
  request.cookieWrites.push({ name, value, ...(maxAge !== undefined ? { maxAge } : {}) });
}
