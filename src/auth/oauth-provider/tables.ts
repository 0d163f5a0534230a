import type { Generated } from 'kysely';

/** A client application (relying party). Redirect URI lists are JSON arrays of strings. */
export interface OAuthClientsTable {
  id: Generated<number>;
  client_id: string;
  /** SHA-256 hex of the secret; null for a public client (`token_endpoint_auth_method` `none`). */
  client_secret_hash: string | null;
  client_name: string;
  redirect_uris: string;
  post_logout_redirect_uris: string;
  application_type: 'web' | 'native';
  token_endpoint_auth_method: 'client_secret_basic' | 'client_secret_post' | 'none';
  /** The scopes the client may ask for, space-separated. */
  scope: string;
  id_token_signed_response_alg: 'RS256' | 'EdDSA';
  registration: 'admin' | 'dynamic';
  disabled_at: string | null;
  secret_rotated_at: string | null;
  created_at: string;
}

/** What a user consented to for a client (one row per user and client). */
export interface OAuthConsentsTable {
  id: Generated<number>;
  user_id: number;
  client_id: string;
  scope: string;
  created_at: string;
  updated_at: string;
}

/**
 * One authorization: the codes, refresh tokens and access tokens issued from it all end with it.
 * `user_id` is null for a `client_credentials` grant (the client acts as itself).
 */
export interface OAuthGrantsTable {
  id: Generated<number>;
  user_id: number | null;
  client_id: string;
  scope: string;
  resource: string | null;
  auth_time: string | null;
  /** Space-separated `amr` values of the sign-in (`pwd otp mfa`). */
  amr: string | null;
  created_at: string;
  revoked_at: string | null;
}

/** An authorization code: SHA-256 hex, single use, short-lived. */
export interface OAuthCodesTable {
  id: Generated<number>;
  code_hash: string;
  grant_id: number;
  redirect_uri: string;
  /** The S256 `code_challenge` (base64url). */
  code_challenge: string;
  nonce: string | null;
  expires_at: string;
  used_at: string | null;
}

/** An opaque refresh token: SHA-256 hex, rotated on every use. */
export interface OAuthRefreshTokensTable {
  id: Generated<number>;
  token_hash: string;
  grant_id: number;
  expires_at: string;
  used_at: string | null;
  created_at: string;
}

/** An authorization request waiting for its browser (cookie SHA-256) to sign in and consent. */
export interface OAuthPendingAuthorizationsTable {
  id: Generated<number>;
  browser_hash: string;
  client_id: string;
  /** The validated request (JSON). */
  request: string;
  /** The user it was shown to (set once the browser is signed in). */
  user_id: number | null;
  created_at: string;
  expires_at: string;
}

export interface OAuthProviderTables {
  oauth_clients: OAuthClientsTable;
  oauth_consents: OAuthConsentsTable;
  oauth_grants: OAuthGrantsTable;
  oauth_codes: OAuthCodesTable;
  oauth_refresh_tokens: OAuthRefreshTokensTable;
  oauth_pending_authorizations: OAuthPendingAuthorizationsTable;
}

/** Every table the plugin's migration creates. */
export const OAUTH_PROVIDER_TABLES = [
  'oauth_clients',
  'oauth_consents',
  'oauth_grants',
  'oauth_codes',
  'oauth_refresh_tokens',
  'oauth_pending_authorizations',
] as const;

declare module '../../plugin-api.ts' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- declaration merging
  interface PluginTables extends OAuthProviderTables {}
}
