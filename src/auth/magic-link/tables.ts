import type { Generated } from 'kysely';

/** One emailed sign-in link: the token only as its SHA-256, single use, short-lived. */
export interface MagicLinkTokensTable {
  id: Generated<number>;
  user_id: number;
  token_hash: string;
  expires_at: string;
  used_at: string | null;
  created_at: string;
}

export interface MagicLinkTables {
  magic_link_tokens: MagicLinkTokensTable;
}

declare module '../../plugin-api.ts' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- declaration merging
  interface PluginTables extends MagicLinkTables {}
}
