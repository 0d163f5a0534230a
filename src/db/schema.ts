import type { Generated } from 'kysely';

/**
 * Table types of the core. Plugins declare their own tables next to their code and add them to
 * `Database` below, so one Kysely instance types every query.
 * Timestamps are ISO 8601 UTC strings (fixed width: they compare and sort as text on every dialect);
 * booleans are 0/1 integers for the same reason.
 */
export interface UsersTable {
  id: Generated<number>;
  username: string;
  /** Lower-cased username: the unique key, so uniqueness and lookups are case-insensitive. */
  username_normalized: string;
  /** Stored lower-case. */
  email: string;
  password_hash: string | null;
  active: number;
  /** When the account last proved its address (null: never); see 0003_email_verified_at. */
  email_verified_at: string | null;
  /** `user` or `admin` (0005_users_role_disabled). */
  role: Generated<string>;
  /** Set while an administrator has disabled the account; `disabled_until` ends it (null: until enabled). */
  disabled_at: string | null;
  disabled_until: string | null;
  /** The language the account reads Citadel in (0008_user_locale); null: the request's. */
  locale: string | null;
  created_at: string;
  updated_at: string;
}

export interface SessionsTable {
  /** SHA-256 (hex) of the cookie value: a leaked table does not give live sessions. */
  id: string;
  user_id: number | null;
  data: string;
  expires_at: string;
  updated_at: string;
}

export interface RememberTokensTable {
  id: Generated<number>;
  selector: string;
  validator_hash: string;
  user_id: number;
  expires_at: string;
  created_at: string;
  last_used_at: string | null;
}

/** The security event log (0007_security_events): every capability records here through the core. */
export interface SecurityEventsTable {
  id: Generated<number>;
  /** Null once the user is deleted: `account_deleted` rows are kept for audit without the user. */
  user_id: number | null;
  /** A core type or one a present plugin declares (`events`). */
  type: string;
  ip: string | null;
  user_agent: string | null;
  /** JSON object with non-secret facts (factor id, token name, device); never a code or token. */
  detail: string;
  created_at: string;
}

export interface PasswordResetTokensTable {
  id: Generated<number>;
  user_id: number;
  token_hash: string;
  expires_at: string;
  used_at: string | null;
  created_at: string;
}

export interface PersonalAccessTokensTable {
  id: Generated<number>;
  user_id: number;
  name: string;
  token_hash: string;
  /** JSON array of ability strings. */
  abilities: string;
  last_used_at: string | null;
  created_at: string;
  expires_at: string | null;
  /** The organization the token acts in, or null. */
  organization_id: number | null;
}

export interface RateLimitsTable {
  key: string;
  count: number;
  reset_at: string;
}

/** Idempotency keys of resource API POSTs (0004_api_idempotency_keys; src/api/write/idempotency.ts). */
export interface ApiIdempotencyKeysTable {
  id: Generated<number>;
  caller: string;
  key_hash: string;
  request_hash: string;
  status: number | null;
  response: string | null;
  etag: string | null;
  created_at: string;
  expires_at: string;
}

/** The tables of the core migrations. */
export interface CoreTables {
  users: UsersTable;
  sessions: SessionsTable;
  remember_tokens: RememberTokensTable;
  password_reset_tokens: PasswordResetTokensTable;
  personal_access_tokens: PersonalAccessTokensTable;
  rate_limits: RateLimitsTable;
  api_idempotency_keys: ApiIdempotencyKeysTable;
  security_events: SecurityEventsTable;
}

/**
 * Every table one Kysely instance knows. Plugins add theirs by declaration merging:
 * `declare module '.../db/schema.ts' { interface Database extends MyTables {} }`.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- extended by declaration merging
export interface Database extends CoreTables {}
