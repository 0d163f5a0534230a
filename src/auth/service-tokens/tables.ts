/**
 * One signing key of the service tokens (Ed25519): the public key as a JWK, the private key as
 * PKCS #8 PEM sealed with AES-256-GCM under a key derived from the session secret (never in clear
 * at rest). The newest key without `retired_at` signs; a retired key stays published until the
 * last token it signed has expired.
 */
export interface ServiceTokenKeysTable {
  /** The `kid` of the tokens it signs: 32 lower-case hex characters. */
  kid: string;
  public_jwk: string;
  private_key_sealed: string;
  created_at: string;
  retired_at: string | null;
}

export interface ServiceTokenTables {
  service_token_keys: ServiceTokenKeysTable;
}

declare module '../../plugin-api.ts' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- declaration merging
  interface PluginTables extends ServiceTokenTables {}
}
