/** Tables of the account center: the security event log and pending email changes. */
export interface SecurityEventsTable {
  id: import('kysely').Generated<number>;
  /** Null once the user is deleted: `account_deleted` rows are kept for audit without the user. */
  user_id: number | null;
  type: string;
  ip: string | null;
  user_agent: string | null;
  /** JSON object with non-secret facts (factor id, token name, device); never a code or token. */
  detail: string;
  created_at: string;
}

export interface EmailChangeTokensTable {
  id: import('kysely').Generated<number>;
  user_id: number;
  new_email: string;
  /** SHA-256 of the emailed token. */
  token_hash: string;
  expires_at: string;
  used_at: string | null;
  created_at: string;
}

export interface AccountCenterTables {
  security_events: SecurityEventsTable;
  email_change_tokens: EmailChangeTokensTable;
}

declare module '../../db/schema.ts' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- declaration merging
  interface Database extends AccountCenterTables {}
}
