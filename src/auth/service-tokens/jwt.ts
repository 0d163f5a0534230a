import { SignJWT, jwtVerify, type JWTPayload } from 'jose';
import type { Kysely } from 'kysely';
import type { Caller } from '../core/caller.ts';
import type { UserRecord } from '../core/users.ts';
import type { Database } from '../../db/schema.ts';
import { once, withParameters } from '../../db/compiled.ts';
import { isValidAbility } from '../core/abilities.ts';
import type { KeyRing } from './keys.ts';

/** Who issues the tokens, for whom, and for how long (the plugin's resolved options). */
export interface ServiceTokenSettings {
  issuer: string;
  audience: string;
  ttlSeconds: number;
}

export interface MintInput {
  userId: number;
  /** The session or personal access token it was minted from (an opaque handle). */
  sid: string;
  /** Present when minted from a token or when asked for: what the service token may do. */
  abilities?: readonly string[];
  /** No later than this (seconds since the epoch): the expiry of the token it was minted from. */
  notAfter?: number;
}

export interface Minted {
  token: string;
  expiresIn: number;
}

/** Sign a service token: EdDSA (Ed25519), `kid` in the header. */
export async function mintServiceToken(
  ring: KeyRing,
  settings: ServiceTokenSettings,
  input: MintInput,
  now: Date,
): Promise<Minted> {
  const key = await ring.signingKey();
  const iat = Math.floor(now.getTime() / 1000);
  const exp = Math.min(iat + settings.ttlSeconds, input.notAfter ?? Number.POSITIVE_INFINITY);
  const claims: JWTPayload = { sid: input.sid };
  if (input.abilities) claims.abilities = [...input.abilities];
  const token = await new SignJWT(claims)
    .setProtectedHeader({ alg: 'EdDSA', typ: 'JWT', kid: key.kid })
    .setIssuer(settings.issuer)
    .setSubject(String(input.userId))
    .setAudience(settings.audience)
    .setIssuedAt(iat)
    .setExpirationTime(exp)
    .sign(key.privateKey);
  return { token, expiresIn: exp - iat };
}

/** Three base64url parts: a compact JWS. Personal access tokens never look like one. */
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
const USER_ID = /^[1-9][0-9]{0,15}$/;
/** Verified tokens kept in memory (a token is verified once, its expiry checked on every use). */
const VERIFIED_CACHE_SIZE = 10_000;

interface VerifiedClaims {
  userId: number;
  sid: string;
  abilities: string[] | null;
  iat: number;
  exp: number;
}

export function looksLikeJwt(token: string): boolean {
  return token.length <= 4096 && COMPACT_JWS.test(token);
}

/**
 * Verifies service tokens for one server: signature against the published key of the header's
 * `kid` (EdDSA only: `alg: none` and every other algorithm are refused), `iss`, `aud`, `exp`, then
 * the user by id (one point read; never the session). Verified tokens are remembered until they
 * expire, so a busy token costs a map lookup.
 */
export class ServiceTokenVerifier {
  private readonly verified = new Map<string, VerifiedClaims>();
  private readonly userQuery = once(() =>
    this.db.selectFrom('users').selectAll().where('id', '=', 0).compile(),
  );

  constructor(
    private readonly db: Kysely<Database>,
    private readonly ring: KeyRing,
    private readonly settings: ServiceTokenSettings,
  ) {}

  /** The claims of a valid token at `now`, or null. */
  async claims(token: string, now: Date): Promise<VerifiedClaims | null> {
    const nowSeconds = now.getTime() / 1000;
    const cached = this.verified.get(token);
    if (cached) return cached.exp > nowSeconds ? cached : null;
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, (header) => this.keyFor(header.kid), {
        algorithms: ['EdDSA'],
        issuer: this.settings.issuer,
        audience: this.settings.audience,
        requiredClaims: ['iat', 'exp', 'sub', 'sid'],
        currentDate: now,
      }));
    } catch {
      return null;
    }
    const claims = readClaims(payload);
    if (!claims) return null;
    if (this.verified.size >= VERIFIED_CACHE_SIZE) this.verified.clear();
    this.verified.set(token, claims);
    return claims;
  }

  private async keyFor(kid: unknown) {
    const key = await this.ring.publicKey(kid);
    if (!key) throw new Error('unknown key');
    return key;
  }

  /** The caller of a valid token, or null. */
  async caller(token: string, now: Date): Promise<Caller | null> {
    const claims = await this.claims(token, now);
    if (!claims) return null;
    const [user] = (await this.db.executeQuery(withParameters(this.userQuery(), [claims.userId]))).rows;
    if (!user) return null;
    const expiresAt = new Date(claims.exp * 1000).toISOString();
    return {
      via: 'bearer',
      user: user as UserRecord,
      token: {
        id: 0,
        name: 'service token',
        // Minted from a session without a list: every ability of its user, as the session had.
        abilities: claims.abilities ?? ['*'],
        last_used_at: null,
        created_at: new Date(claims.iat * 1000).toISOString(),
        expires_at: expiresAt,
      },
      credential: { kind: 'service_token', id: claims.sid, expiresAt },
    };
  }
}

function readClaims(payload: JWTPayload): VerifiedClaims | null {
  const { sub, sid, abilities, iat, exp } = payload;
  if (typeof sub !== 'string' || !USER_ID.test(sub)) return null;
  if (typeof sid !== 'string' || typeof iat !== 'number' || typeof exp !== 'number') return null;
  let list: string[] | null = null;
  if (abilities !== undefined) {
    if (!Array.isArray(abilities) || !abilities.every((a) => typeof a === 'string' && isValidAbility(a)))
      return null;
    list = abilities as string[];
  }
  return { userId: Number(sub), sid, abilities: list, iat, exp };
}
