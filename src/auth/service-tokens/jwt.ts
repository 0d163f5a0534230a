import { SignJWT, jwtVerify, type JWTPayload } from 'jose';
import type { Kysely } from 'kysely';
import {
  type Caller,
  type UserRecord,
  type Database,
  once,
  withParameters,
  isValidAbility,
} from '../../plugin-api.ts';
import type { KeyRing } from './keys.ts';
import { RecentUsers } from './recent-users.ts';

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
export const VERIFIED_CACHE_SIZE = 10_000;

interface VerifiedClaims {
  userId: number;
  sid: string;
  abilities: string[] | null;
  iat: number;
  exp: number;
  /** `iat` and `exp` as ISO timestamps, formatted once. */
  issuedAt: string;
  expiresAt: string;
}

export function looksLikeJwt(token: string): boolean {
  return token.length <= 4096 && COMPACT_JWS.test(token);
}

/**
 * Whether a JWT's header `typ` (as `jwsHeaderTyp` reads it) may be a service token's: `JWT`, or
 * none. Another `typ` (`at+jwt`, an OAuth access token) is another plugin's kind (RFC 8725 §3.11);
 * an ID token (`JWT`) is taken here and refused, never accepted as a bearer.
 */
export function isServiceTokenTyp(typ: string | undefined): boolean {
  return typ === undefined || typ === 'jwt';
}

/**
 * Verifies service tokens for one server: signature against the published key of the header's
 * `kid` (EdDSA only: `alg: none` and every other algorithm are refused), `iss`, `aud`, `exp`, then
 * the user (never the session). A verified token is remembered until it expires and its user for a
 * second (`RecentUsers`), so a busy token is answered from memory, without a promise.
 */
export class ServiceTokenVerifier {
  private readonly verified = new Map<string, VerifiedClaims>();
  private readonly userQuery = once(() =>
    this.db.selectFrom('users').selectAll().where('id', '=', 0).compile(),
  );
  readonly users = new RecentUsers(async (userId) => {
    const [user] = (await this.db.executeQuery(withParameters(this.userQuery(), [userId]))).rows;
    return user as UserRecord | undefined;
  });

  constructor(
    private readonly db: Kysely<Database>,
    private readonly ring: KeyRing,
    private readonly settings: ServiceTokenSettings,
    private readonly verifiedLimit = VERIFIED_CACHE_SIZE,
  ) {}

  /** The claims of a valid token at `now`, or null. */
  async claims(token: string, now: Date): Promise<VerifiedClaims | null> {
    const known = this.knownClaims(token, now.getTime());
    if (known !== undefined) return known;
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
    if (this.verified.size >= this.verifiedLimit) {
      // The oldest verified token goes (the map keeps insertion order).
      const oldest = this.verified.keys().next().value;
      if (oldest !== undefined) this.verified.delete(oldest);
    }
    this.verified.set(token, claims);
    return claims;
  }

  /** How many verified tokens are remembered. */
  get verifiedCount(): number {
    return this.verified.size;
  }

  /** A remembered token's claims, null once it has expired, undefined when not verified yet. */
  private knownClaims(token: string, nowMs: number): VerifiedClaims | null | undefined {
    const known = this.verified.get(token);
    if (!known) return undefined;
    if (known.exp * 1000 > nowMs) return known;
    this.verified.delete(token);
    return null;
  }

  private async keyFor(kid: unknown) {
    const key = await this.ring.publicKey(kid);
    if (!key) throw new Error('unknown key');
    return key;
  }

  /**
   * The caller of a valid token, or null: from memory when the token was verified before and its
   * user read less than a second ago, else a promise.
   */
  caller(token: string, now: Date): Caller | null | Promise<Caller | null> {
    const nowMs = now.getTime();
    const claims = this.knownClaims(token, nowMs);
    if (claims === null) return null;
    if (claims) {
      const user = this.users.peek(claims.userId, nowMs);
      if (user !== undefined) return user && callerOf(claims, user);
    }
    return this.callerFromDatabase(token, now);
  }

  private async callerFromDatabase(token: string, now: Date): Promise<Caller | null> {
    const claims = await this.claims(token, now);
    if (!claims) return null;
    const user = await this.users.load(claims.userId, now.getTime());
    return user && callerOf(claims, user);
  }
}

function callerOf(claims: VerifiedClaims, user: UserRecord): Caller {
  return {
    via: 'bearer',
    user,
    token: {
      id: 0,
      name: 'service token',
      // Minted from a session without a list: every ability of its user, as the session had.
      abilities: claims.abilities ?? ['*'],
      last_used_at: null,
      created_at: claims.issuedAt,
      expires_at: claims.expiresAt,
      // A service token acts in no organization: tenant-scoped resources answer 403 to it.
      organization_id: null,
    },
    credential: { kind: 'service_token', id: claims.sid, expiresAt: claims.expiresAt },
  };
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
  return {
    userId: Number(sub),
    sid,
    abilities: list,
    iat,
    exp,
    issuedAt: new Date(iat * 1000).toISOString(),
    expiresAt: new Date(exp * 1000).toISOString(),
  };
}
