import { randomBytes } from 'node:crypto';
import type { JWTPayload } from 'jose';
import type { SigningKeySet } from '../../plugin-api.ts';
import { signJwt, verifyJwt } from './jwt.ts';
import type { JwsAlgorithm } from './keys.ts';

/** Header `typ` of an OAuth access token (RFC 9068 §2.1). */
export const ACCESS_TOKEN_TYP = 'at+jwt';

export interface AccessTokenInput {
  issuer: string;
  /** The user id, or null for a `client_credentials` grant (then `sub` is the client id). */
  userId: number | null;
  clientId: string;
  /** The granted scopes. */
  scope: readonly string[];
  /** `aud`: the `resource` the client asked for, else the issuer. */
  audience: string;
  /** The grant it was issued from: a revoked grant's access tokens stop working. */
  grantId: number;
  /** When the user signed in (`auth_time`); absent for `client_credentials`. */
  authTime?: Date | null;
  ttlSeconds: number;
  now: Date;
  /** RS256 unless told. */
  alg?: JwsAlgorithm;
}

export interface MintedAccessToken {
  token: string;
  expiresIn: number;
  jti: string;
}

/**
 * An RFC 9068 access token: `typ: at+jwt`; `iss`, `sub`, `aud`, `client_id`, `scope`, `iat`,
 * `exp`, `jti`, `auth_time` when a user signed in, and `grant_id` (the grant it came from).
 */
export async function mintAccessToken(
  keys: SigningKeySet,
  input: AccessTokenInput,
): Promise<MintedAccessToken> {
  const iat = Math.floor(input.now.getTime() / 1000);
  const jti = randomBytes(16).toString('base64url');
  const claims: JWTPayload = {
    iss: input.issuer,
    sub: input.userId === null ? input.clientId : String(input.userId),
    aud: input.audience,
    client_id: input.clientId,
    scope: input.scope.join(' '),
    iat,
    exp: iat + input.ttlSeconds,
    jti,
    grant_id: String(input.grantId),
  };
  if (input.userId !== null && input.authTime) claims.auth_time = Math.floor(input.authTime.getTime() / 1000);
  const token = await signJwt(keys, claims, { typ: ACCESS_TOKEN_TYP, alg: input.alg });
  return { token, expiresIn: input.ttlSeconds, jti };
}

/** The claims of a verified access token. */
export interface AccessTokenClaims {
  /** The user id; null when the token acts as the client (`client_credentials`, `sub` = client id). */
  userId: number | null;
  clientId: string;
  scope: string[];
  audience: string[];
  grantId: number;
  jti: string;
  iat: number;
  exp: number;
  authTime: number | null;
}

const USER_ID = /^[1-9][0-9]{0,15}$/;
const GRANT_ID = /^[1-9][0-9]{0,15}$/;
const SCOPE = /^[\x21\x23-\x5b\x5d-\x7e]+(?: [\x21\x23-\x5b\x5d-\x7e]+)*$/;

export interface VerifyAccessTokenOptions {
  issuer: string;
  /** An audience the token must hold (the resource API's identifier, or the issuer for userinfo). */
  audience: string | string[];
  now: Date;
}

/**
 * The claims of a valid access token, or null: signature with a published key, `typ: at+jwt`
 * (an ID token or a service token is never one), `iss`, `aud`, `exp`, and every claim this
 * provider puts in. The grant is not read here: the caller checks it is still active.
 */
export async function verifyAccessToken(
  keys: SigningKeySet,
  token: string,
  options: VerifyAccessTokenOptions,
): Promise<AccessTokenClaims | null> {
  const verified = await verifyJwt(keys, token, {
    typ: ACCESS_TOKEN_TYP,
    issuer: options.issuer,
    audience: options.audience,
    requiredClaims: ['sub', 'client_id', 'iat', 'exp', 'jti', 'grant_id'],
    now: options.now,
  });
  return verified ? readAccessClaims(verified.payload) : null;
}

function readAccessClaims(payload: JWTPayload): AccessTokenClaims | null {
  const { sub, client_id, scope, aud, grant_id, jti, iat, exp, auth_time } = payload;
  if (typeof sub !== 'string' || typeof client_id !== 'string' || typeof jti !== 'string') return null;
  if (typeof iat !== 'number' || typeof exp !== 'number') return null;
  if (typeof grant_id !== 'string' || !GRANT_ID.test(grant_id)) return null;
  if (scope !== undefined && (typeof scope !== 'string' || (scope !== '' && !SCOPE.test(scope)))) return null;
  if (auth_time !== undefined && typeof auth_time !== 'number') return null;
  // A client acting as itself has the client id as `sub`; a user's token, the user id.
  const asClient = sub === client_id && !USER_ID.test(sub);
  if (!asClient && !USER_ID.test(sub)) return null;
  return {
    userId: asClient ? null : Number(sub),
    clientId: client_id,
    scope: typeof scope === 'string' && scope !== '' ? scope.split(' ') : [],
    audience: typeof aud === 'string' ? [aud] : (aud ?? []),
    grantId: Number(grant_id),
    jti,
    iat,
    exp,
    authTime: typeof auth_time === 'number' ? auth_time : null,
  };
}
