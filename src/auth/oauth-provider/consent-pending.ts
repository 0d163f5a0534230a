import { type RequestContext, setCookie, randomToken, sha256Hex } from '../../plugin-api.ts';
import { oauthProviderOptions } from './options.ts';
import './tables.ts';

/**
 * A pending authorization: one server-side record bound to the browser by a random cookie (kept
 * as its SHA-256), waiting for the browser to sign in (through Citadel's own sign-in and its
 * whole pipeline) and consent. It ends with completion, denial, expiry or sign-out; nothing of it
 * lives in the session, so a later ordinary sign-in never lands on a consent page.
 */

export const PENDING_COOKIE = 'citadel_oauth_pending';

/** A validated authorization request. */
export interface AuthorizationRequest {
  clientId: string;
  redirectUri: string;
  scope: string[];
  state: string | null;
  codeChallenge: string;
  nonce: string | null;
  prompt: string[];
  maxAge: number | null;
  loginHint: string | null;
  /** The `resource` asked for (RFC 8707), or null: the issuer is then the audience. */
  resource: string | null;
}

export interface PendingAuthorization {
  id: number;
  request: AuthorizationRequest;
  /** The user the consent page was shown to. */
  userId: number | null;
  createdAt: string;
}

function browserHash(request: RequestContext): string | undefined {
  const value = request.cookies[PENDING_COOKIE];
  return value && value.length <= 64 ? sha256Hex(value) : undefined;
}

/** Start a pending authorization for this browser, replacing the one it had. */
export async function startPending(
  request: RequestContext,
  authorization: AuthorizationRequest,
): Promise<PendingAuthorization> {
  const { db, clock } = request.services;
  await endPending(request);
  const value = randomToken(32);
  const now = clock.now();
  const ttl = oauthProviderOptions(request.services).pendingTtlSeconds;
  const values = {
    browser_hash: sha256Hex(value),
    client_id: authorization.clientId,
    request: JSON.stringify(authorization),
    user_id: null,
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + ttl * 1000).toISOString(),
  };
  await db.insertInto('oauth_pending_authorizations').values(values).execute();
  const row = await db
    .selectFrom('oauth_pending_authorizations')
    .select('id')
    .where('browser_hash', '=', values.browser_hash)
    .executeTakeFirstOrThrow();
  setCookie(request, PENDING_COOKIE, value, ttl);
  return { id: row.id, request: authorization, userId: null, createdAt: values.created_at };
}

/** This browser's pending authorization, unless there is none or it expired. */
export async function readPending(request: RequestContext): Promise<PendingAuthorization | undefined> {
  const hash = browserHash(request);
  if (!hash) return undefined;
  const { db, clock } = request.services;
  const row = await db
    .selectFrom('oauth_pending_authorizations')
    .select(['id', 'request', 'user_id', 'created_at', 'expires_at'])
    .where('browser_hash', '=', hash)
    .executeTakeFirst();
  if (!row) return undefined;
  if (row.expires_at <= clock.now().toISOString()) {
    await endPending(request);
    return undefined;
  }
  return {
    id: row.id,
    request: JSON.parse(row.request) as AuthorizationRequest,
    userId: row.user_id,
    createdAt: row.created_at,
  };
}

/** The consent page was shown to this user: only they can answer it. */
export async function bindPending(request: RequestContext, pending: PendingAuthorization, userId: number) {
  await request.services.db
    .updateTable('oauth_pending_authorizations')
    .set({ user_id: userId })
    .where('id', '=', pending.id)
    .execute();
}

/** End this browser's pending authorization (completion, denial, sign-out) and clear its cookie. */
export async function endPending(request: RequestContext): Promise<void> {
  const hash = browserHash(request);
  if (!hash) return;
  const { db, clock } = request.services;
  await db.deleteFrom('oauth_pending_authorizations').where('browser_hash', '=', hash).execute();
  // Expired ones of other browsers go too.
  await db
    .deleteFrom('oauth_pending_authorizations')
    .where('expires_at', '<=', clock.now().toISOString())
    .execute();
  setCookie(request, PENDING_COOKIE, null);
}
