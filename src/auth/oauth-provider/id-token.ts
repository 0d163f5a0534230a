import type { JWTPayload } from 'jose';
import type { UserRecord, SigningKeySet } from '../../plugin-api.ts';
import type { OAuthClient } from './clients.ts';
import { signJwt } from './jwt.ts';

/** The profile and email claims of a user, as far as the granted scopes release them. */
export function userClaims(user: UserRecord, scope: readonly string[]): Record<string, unknown> {
  const claims: Record<string, unknown> = { sub: String(user.id) };
  if (scope.includes('profile')) {
    claims.preferred_username = user.username;
    claims.name = user.username;
  }
  if (scope.includes('email')) {
    claims.email = user.email;
    claims.email_verified = user.email_verified_at !== null;
  }
  return claims;
}

export interface IdTokenInput {
  issuer: string;
  client: Pick<OAuthClient, 'client_id' | 'id_token_signed_response_alg'>;
  user: UserRecord;
  scope: readonly string[];
  authTime: string | null;
  amr: readonly string[];
  nonce: string | null;
  ttlSeconds: number;
  now: Date;
}

/**
 * An ID token (OpenID Connect Core 2): `iss`, `sub`, `aud` (the client), `exp`, `iat`,
 * `auth_time` and `amr` of the sign-in, `nonce` when the request had one, and the claims of the
 * granted scopes. Signed RS256 unless the client registered EdDSA.
 */
export async function mintIdToken(keys: SigningKeySet, input: IdTokenInput): Promise<string> {
  const iat = Math.floor(input.now.getTime() / 1000);
  const authTime = input.authTime ? Math.floor(Date.parse(input.authTime) / 1000) : iat;
  const claims: JWTPayload = {
    ...userClaims(input.user, input.scope),
    iss: input.issuer,
    aud: input.client.client_id,
    azp: input.client.client_id,
    iat,
    exp: iat + input.ttlSeconds,
    auth_time: authTime,
    amr: [...input.amr],
  };
  if (input.nonce !== null) claims.nonce = input.nonce;
  return signJwt(keys, claims, { typ: 'JWT', alg: input.client.id_token_signed_response_alg });
}
