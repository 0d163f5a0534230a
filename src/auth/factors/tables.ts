import type { Generated } from 'kysely';

/** One authenticator-app secret per user; the secret is AES-GCM encrypted under a server-derived key. */
export interface TotpFactorsTable {
  id: Generated<number>;
  user_id: number;
  secret_encrypted: string;
  /** The last accepted 30-second time step: a code of that step or earlier is never accepted again. */
  last_used_step: number;
  created_at: string;
}

/** WebAuthn credentials: several named passkeys per user. */
export interface PasskeysTable {
  id: Generated<number>;
  user_id: number;
  /** base64url credential id (unique). */
  credential_id: string;
  /** base64url COSE public key. */
  public_key: string;
  counter: number;
  /** JSON array of transports the browser reported. */
  transports: string;
  name: string;
  created_at: string;
  last_used_at: string | null;
}

/** Single-use recovery codes, stored as HMACs. */
export interface RecoveryCodesTable {
  id: Generated<number>;
  user_id: number;
  code_hash: string;
  used_at: string | null;
  created_at: string;
}

export interface FactorTables {
  totp_factors: TotpFactorsTable;
  passkeys: PasskeysTable;
  recovery_codes: RecoveryCodesTable;
}

declare module '../../plugin-api.ts' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- declaration merging
  interface PluginTables extends FactorTables {}
}
