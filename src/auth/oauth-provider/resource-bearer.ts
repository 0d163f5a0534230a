import type { Kysely } from 'kysely';
import {
  type Caller,
  type UserRecord,
  type BearerVerifier,
  type CitadelServices,
  type Database,
  once,
  withParameters,
  jwsHeaderTyp,
} from '../../plugin-api.ts';
import { ACCESS_TOKEN_TYP, verifyAccessToken, type AccessTokenClaims } from './access-token.ts';
import { isCompactJws } from './jwt.ts';
import { providerKeys } from './keys.ts';
import { oauthProviderOptions } from './options.ts';
import { isResourceScope } from './scopes.ts';
import './tables.ts';

/** Verified access tokens kept in memory (verified once; expiry and grant checked on every use). */
const VERIFIED_CACHE_SIZE = 10_000;

/** What the grant of an access token says now: one read by primary key, joined with its client and user. */
export interface GrantState {
  grantId: number;
  userId: number | null;
  clientId: string;
  revoked: boolean;
  clientDisabled: boolean;
  /** The user's row (null for a `client_credentials` grant). */
  user: UserRecord | null;
}

/** Scopes that are resource abilities (`posts:read`, `posts:*`): what the token may do in the API. */
export function resourceAbilities(scope: readonly string[]): string[] {
  return scope.filter(isResourceScope);
}

/**
 * The access tokens of one server: verified against the published keys (cached by token until
 * they expire), then their grant read on every use, so that a revoked grant (consent withdrawn,
 * refresh token or code reused) or a disabled client stops them at once.
 */
export class AccessTokenVerifier {
  private readonly verified = new Map<string, AccessTokenClaims>();
  private readonly grantQuery = once(() =>
    this.db
      .selectFrom('oauth_grants')
      .innerJoin('oauth_clients', 'oauth_clients.client_id', 'oauth_grants.client_id')
      .leftJoin('users', 'users.id', 'oauth_grants.user_id')
      .selectAll('users')
      .select([
        'oauth_grants.id as grant_id',
        'oauth_grants.user_id as grant_user_id',
        'oauth_grants.client_id as grant_client_id',
        'oauth_grants.revoked_at as grant_revoked_at',
        'oauth_clients.disabled_at as client_disabled_at',
      ])
      .where('oauth_grants.id', '=', 0)
      .compile(),
  );

  constructor(
    private readonly db: Kysely<Database>,
    private readonly services: CitadelServices,
  ) {}

  /** The claims of a valid token for one of `audiences` at `now` (grant not checked), or null. */
  async claims(token: string, now: Date): Promise<AccessTokenClaims | null> {
    const known = this.verified.get(token);
    if (known) {
      if (known.exp * 1000 > now.getTime()) return known;
      this.verified.delete(token);
      return null;
    }
    const { issuer, resourceIdentifier } = oauthProviderOptions(this.services);
    const claims = await verifyAccessToken(providerKeys(this.services), token, {
      issuer,
      audience: [resourceIdentifier, issuer],
      now,
    });
    if (!claims) return null;
    if (this.verified.size >= VERIFIED_CACHE_SIZE) {
      const oldest = this.verified.keys().next().value;
      if (oldest !== undefined) this.verified.delete(oldest);
    }
    this.verified.set(token, claims);
    return claims;
  }

  /** The grant's state now, or undefined when it is gone. */
  async grant(grantId: number): Promise<GrantState | undefined> {
    const [row] = (await this.db.executeQuery(withParameters(this.grantQuery(), [grantId]))).rows;
    if (!row) return undefined;
    const { grant_id, grant_user_id, grant_client_id, grant_revoked_at, client_disabled_at, ...user } = row;
    return {
      grantId: grant_id,
      userId: grant_user_id,
      clientId: grant_client_id,
      revoked: grant_revoked_at !== null,
      clientDisabled: client_disabled_at !== null,
      user: user.id === null ? null : (user as UserRecord),
    };
  }

  /**
   * A valid token whose grant is still active (not revoked, its client enabled, the same user and
   * client as the token says), with the grant's state; null otherwise.
   */
  async active(token: string, now: Date): Promise<{ claims: AccessTokenClaims; grant: GrantState } | null> {
    const claims = await this.claims(token, now);
    if (!claims) return null;
    const grant = await this.grant(claims.grantId);
    if (!grant || grant.revoked || grant.clientDisabled) return null;
    if (grant.clientId !== claims.clientId || grant.userId !== claims.userId) return null;
    return { claims, grant };
  }

  /** The caller of a bearer access token, or null (401). */
  async caller(token: string, now: Date): Promise<Caller | null> {
    const found = await this.active(token, now);
    if (!found) return null;
    const { claims, grant } = found;
    // A token that acts as a client (client_credentials) has no user to act as here.
    if (!grant.user) return null;
    const { resourceIdentifier } = oauthProviderOptions(this.services);
    const expiresAt = new Date(claims.exp * 1000).toISOString();
    return {
      via: 'bearer',
      user: grant.user,
      token: {
        id: 0,
        name: `OAuth client ${claims.clientId}`,
        // Only for the resource API: a token for the issuer (userinfo) holds no ability there.
        abilities: claims.audience.includes(resourceIdentifier) ? resourceAbilities(claims.scope) : [],
        last_used_at: null,
        created_at: new Date(claims.iat * 1000).toISOString(),
        expires_at: expiresAt,
        organization_id: null,
      },
      credential: {
        kind: 'oauth_access_token',
        id: claims.jti,
        expiresAt,
        audience: claims.audience.includes(resourceIdentifier) ? 'api' : 'issuer',
      },
    };
  }
}

const verifiers = new WeakMap<CitadelServices, AccessTokenVerifier>();

/** The server's access-token verifier (made on first use). */
export function accessTokenVerifier(services: CitadelServices): AccessTokenVerifier {
  let verifier = verifiers.get(services);
  if (!verifier) {
    verifier = new AccessTokenVerifier(services.db, services);
    verifiers.set(services, verifier);
  }
  return verifier;
}

/**
 * The plugin's `bearer`: a JWT whose header `typ` is `at+jwt` is an OAuth access token (RFC 9068
 * §4); anything else is another verifier's (a service token, or an ID token, which the service
 * tokens' verifier refuses).
 */
export const accessTokenBearer: BearerVerifier = (token, services) =>
  isCompactJws(token) && jwsHeaderTyp(token) === ACCESS_TOKEN_TYP
    ? accessTokenVerifier(services).caller(token, services.clock.now())
    : undefined;
