import type { Generated } from 'kysely';

/** An organization: a tenant of tenant-scoped resources. */
export interface OrganizationsTable {
  id: Generated<number>;
  name: string;
  /** Unique; lower-case letters, digits and `-`. */
  slug: string;
  created_at: string;
}

/** A user's membership of an organization, with the user's role there. */
export interface OrganizationMembersTable {
  id: Generated<number>;
  organization_id: number;
  user_id: number;
  role: string;
  created_at: string;
}

/** An emailed invitation: the token only as its SHA-256, single use, seven days. */
export interface OrganizationInvitationsTable {
  id: Generated<number>;
  organization_id: number;
  email: string;
  role: string;
  token_hash: string;
  invited_by: number;
  expires_at: string;
  used_at: string | null;
  created_at: string;
}

/** An emailed link that proves the account `user_id` receives mail at `email`: SHA-256, single use. */
export interface OrganizationEmailProofsTable {
  id: Generated<number>;
  user_id: number;
  email: string;
  token_hash: string;
  expires_at: string;
  used_at: string | null;
  created_at: string;
}

export interface OrganizationTables {
  organizations: OrganizationsTable;
  organization_members: OrganizationMembersTable;
  organization_invitations: OrganizationInvitationsTable;
  organization_email_proofs: OrganizationEmailProofsTable;
}

declare module '../../plugin-api.ts' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- declaration merging
  interface PluginTables extends OrganizationTables {}
}
