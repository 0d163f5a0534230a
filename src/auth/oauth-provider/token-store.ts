import type { Kysely } from 'kysely';
import { type Database, randomToken, sha256Hex, insertReturningId } from '../../plugin-api.ts';
import './tables.ts';

/**
 * Grants and what is issued from them: authorization codes and refresh tokens, stored only as
 * their SHA-256. Revoking a grant ends every code, refresh token and access token issued from it.
 */

export interface NewGrant {
  userId: number | null;
  clientId: string;
  scope: readonly string[];
  resource: string | null;
  authTime: string | null;
  amr: readonly string[];
}

export interface GrantRow {
  id: number;
  user_id: number | null;
  client_id: string;
  scope: string[];
  resource: string | null;
  auth_time: string | null;
  amr: string[];
  revoked_at: string | null;
}

export async function createGrant(db: Kysely<Database>, grant: NewGrant, now: Date): Promise<number> {
  const values = {
    user_id: grant.userId,
    client_id: grant.clientId,
    scope: grant.scope.join(' '),
    resource: grant.resource,
    auth_time: grant.authTime,
    amr: grant.amr.join(' ').slice(0, 64) || null,
    created_at: now.toISOString(),
  };
  return insertReturningId(db, 'oauth_grants', values);
}

export async function findGrant(db: Kysely<Database>, id: number): Promise<GrantRow | undefined> {
  const row = await db
    .selectFrom('oauth_grants')
    .select(['id', 'user_id', 'client_id', 'scope', 'resource', 'auth_time', 'amr', 'revoked_at'])
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    ...row,
    scope: row.scope === '' ? [] : row.scope.split(' '),
    amr: row.amr ? row.amr.split(' ') : [],
  };
}

/** End a grant: its refresh tokens stop at once, its access tokens at their next check. */
export async function revokeGrant(db: Kysely<Database>, id: number, now: Date): Promise<void> {
  await db
    .updateTable('oauth_grants')
    .set({ revoked_at: now.toISOString() })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .execute();
  await db.deleteFrom('oauth_refresh_tokens').where('grant_id', '=', id).execute();
}

/** A new authorization code (32 random bytes) for a grant; returns the code itself. */
export async function issueCode(
  db: Kysely<Database>,
  input: { grantId: number; redirectUri: string; codeChallenge: string; nonce: string | null },
  expiresAt: Date,
): Promise<string> {
  const code = randomToken(32);
  await db
    .insertInto('oauth_codes')
    .values({
      code_hash: sha256Hex(code),
      grant_id: input.grantId,
      redirect_uri: input.redirectUri,
      code_challenge: input.codeChallenge,
      nonce: input.nonce,
      expires_at: expiresAt.toISOString(),
    })
    .execute();
  return code;
}

export interface CodeRow {
  id: number;
  grant_id: number;
  redirect_uri: string;
  code_challenge: string;
  nonce: string | null;
  expires_at: string;
}

/**
 * Redeem a code once: the row when this call is the first to use it, `reused` when it was used
 * before (the caller then revokes its grant), undefined when there is no such code.
 */
export async function redeemCode(
  db: Kysely<Database>,
  code: string,
  now: Date,
): Promise<CodeRow | { reused: number } | undefined> {
  const row = await db
    .selectFrom('oauth_codes')
    .select(['id', 'grant_id', 'redirect_uri', 'code_challenge', 'nonce', 'expires_at', 'used_at'])
    .where('code_hash', '=', sha256Hex(code))
    .executeTakeFirst();
  if (!row) return undefined;
  if (row.used_at !== null) return { reused: row.grant_id };
  // Single use under races: only the request whose update changes the row redeems it.
  const claimed = await db
    .updateTable('oauth_codes')
    .set({ used_at: now.toISOString() })
    .where('id', '=', row.id)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  if (Number(claimed.numUpdatedRows) !== 1) return { reused: row.grant_id };
  const { used_at: _used, ...code_ } = row;
  return code_;
}

/** A new refresh token for a grant; returns the token itself. */
export async function issueRefreshToken(
  db: Kysely<Database>,
  grantId: number,
  now: Date,
  ttlSeconds: number,
): Promise<string> {
  const token = randomToken(32);
  await db
    .insertInto('oauth_refresh_tokens')
    .values({
      token_hash: sha256Hex(token),
      grant_id: grantId,
      expires_at: new Date(now.getTime() + ttlSeconds * 1000).toISOString(),
      created_at: now.toISOString(),
    })
    .execute();
  return token;
}

/**
 * Use a refresh token once (rotation): its grant id when this call is the first to use it,
 * `reused` with the grant id when it was used before, undefined when unknown or expired.
 */
export async function useRefreshToken(
  db: Kysely<Database>,
  token: string,
  now: Date,
): Promise<{ grantId: number } | { reused: number } | undefined> {
  const row = await db
    .selectFrom('oauth_refresh_tokens')
    .select(['id', 'grant_id', 'expires_at', 'used_at'])
    .where('token_hash', '=', sha256Hex(token))
    .executeTakeFirst();
  if (!row) return undefined;
  if (row.used_at !== null) return { reused: row.grant_id };
  if (row.expires_at <= now.toISOString()) return undefined;
  const claimed = await db
    .updateTable('oauth_refresh_tokens')
    .set({ used_at: now.toISOString() })
    .where('id', '=', row.id)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  if (Number(claimed.numUpdatedRows) !== 1) return { reused: row.grant_id };
  return { grantId: row.grant_id };
}

/** The grant of a refresh token (used or not), for revocation and introspection. */
export async function refreshTokenGrant(
  db: Kysely<Database>,
  token: string,
): Promise<{ grantId: number; expiresAt: string; used: boolean } | undefined> {
  const row = await db
    .selectFrom('oauth_refresh_tokens')
    .select(['grant_id', 'expires_at', 'used_at'])
    .where('token_hash', '=', sha256Hex(token))
    .executeTakeFirst();
  return row && { grantId: row.grant_id, expiresAt: row.expires_at, used: row.used_at !== null };
}

/** The scopes a user consented to for a client, or undefined. */
export async function consentedScopes(
  db: Kysely<Database>,
  userId: number,
  clientId: string,
): Promise<string[] | undefined> {
  const row = await db
    .selectFrom('oauth_consents')
    .select('scope')
    .where('user_id', '=', userId)
    .where('client_id', '=', clientId)
    .executeTakeFirst();
  return row ? row.scope.split(' ').filter(Boolean) : undefined;
}

/** Remember a consent: the scopes given now join those given before. */
export async function rememberConsent(
  db: Kysely<Database>,
  userId: number,
  clientId: string,
  scope: readonly string[],
  now: Date,
): Promise<void> {
  const before = await consentedScopes(db, userId, clientId);
  const merged = [...new Set([...(before ?? []), ...scope])].join(' ');
  if (before === undefined) {
    try {
      await db
        .insertInto('oauth_consents')
        .values({
          user_id: userId,
          client_id: clientId,
          scope: merged,
          created_at: now.toISOString(),
          updated_at: now.toISOString(),
        })
        .execute();
      return;
    } catch {
      // A concurrent consent inserted the row first: update it below.
    }
  }
  await db
    .updateTable('oauth_consents')
    .set({ scope: merged, updated_at: now.toISOString() })
    .where('user_id', '=', userId)
    .where('client_id', '=', clientId)
    .execute();
}
