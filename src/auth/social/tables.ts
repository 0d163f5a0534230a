import type { Generated } from 'kysely';

/**
 * A user's identity at a social provider: (provider, subject) is unique. The provider's email is
 * kept for reference only; provider access and refresh tokens are never stored.
 */
export interface OAuthIdentitiesTable {
  id: Generated<number>;
  provider: string;
  subject: string;
  email: string | null;
  user_id: number;
  created_at: string;
  updated_at: string;
}

export interface SocialTables {
  oauth_identities: OAuthIdentitiesTable;
}

declare module '../../plugin-api.ts' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- declaration merging
  interface PluginTables extends SocialTables {}
}
