/** The account center's table: pending email changes (the security event log is the core's). */
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
  email_change_tokens: EmailChangeTokensTable;
}

declare module '../../plugin-api.ts' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- declaration merging
  interface PluginTables extends AccountCenterTables {}
}
