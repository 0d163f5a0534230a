import { SignJWT, jwtVerify, type JWTHeaderParameters, type JWTPayload } from 'jose';
import type { SigningKeySet } from '../../plugin-api.ts';
import { DEFAULT_SIGNING_ALGORITHM, SIGNING_ALGORITHMS, type JwsAlgorithm } from './keys.ts';

/** Three base64url parts: a compact JWS. */
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

export function isCompactJws(token: string): boolean {
  return token.length <= 8192 && COMPACT_JWS.test(token);
}

export interface SignOptions {
  /** Header `typ`: `at+jwt` for access tokens (RFC 9068), `JWT` for ID tokens. */
  typ: string;
  /** RS256 unless told (the client's `id_token_signed_response_alg`). */
  alg?: JwsAlgorithm;
}

/**
 * Sign `claims` with the current key of the algorithm (`kid` in the header). The claims are
 * taken as they are: the caller sets `iss`, `sub`, `aud`, `iat`, `exp`.
 */
export async function signJwt(
  keys: SigningKeySet,
  claims: JWTPayload,
  options: SignOptions,
): Promise<string> {
  const alg = options.alg ?? DEFAULT_SIGNING_ALGORITHM;
  const key = await keys.signingKey(alg);
  return new SignJWT(claims).setProtectedHeader({ alg, typ: options.typ, kid: key.kid }).sign(key.privateKey);
}

export interface VerifyOptions {
  /** The header `typ` required (jose compares it as RFC 8725 says: `application/` optional). */
  typ: string;
  issuer: string;
  /** One of these must be in `aud`; omitted: `aud` is not checked here (the caller does). */
  audience?: string | string[];
  requiredClaims?: string[];
  /** Which algorithms are accepted (default: every one the provider signs with; never `none`). */
  algorithms?: readonly JwsAlgorithm[];
  now: Date;
}

export interface VerifiedJwt {
  payload: JWTPayload;
  header: JWTHeaderParameters;
}

/**
 * A JWT the provider signed, verified with the published key of its `kid` (signature, algorithm,
 * `typ`, `iss`, `aud`, `exp`, `nbf`), or null. Never throws for a bad token.
 */
export async function verifyJwt(
  keys: SigningKeySet,
  token: string,
  options: VerifyOptions,
): Promise<VerifiedJwt | null> {
  if (!isCompactJws(token)) return null;
  try {
    const { payload, protectedHeader } = await jwtVerify(
      token,
      async (header) => {
        const key = await keys.publicKey(header.kid);
        if (!key) throw new Error('unknown key');
        return key;
      },
      {
        algorithms: [...(options.algorithms ?? SIGNING_ALGORITHMS)],
        typ: options.typ,
        issuer: options.issuer,
        audience: options.audience,
        requiredClaims: options.requiredClaims,
        currentDate: options.now,
      },
    );
    return { payload, header: protectedHeader };
  } catch {
    return null;
  }
}
