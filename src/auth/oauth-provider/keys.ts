import {
  JWS_ALGORITHMS,
  coverSigningLifetime,
  signingKeys,
  type JwsAlgorithm,
  type SigningKeySet,
  type CitadelServices,
} from '../../plugin-api.ts';

export type { JwsAlgorithm } from '../../plugin-api.ts';

/** What OpenID Connect Core requires when a client registers no `id_token_signed_response_alg`. */
export const DEFAULT_SIGNING_ALGORITHM: JwsAlgorithm = 'RS256';

/** The algorithms the provider signs ID tokens and access tokens with (metadata lists them). */
export const SIGNING_ALGORITHMS: readonly JwsAlgorithm[] = JWS_ALGORITHMS;

export function isSigningAlgorithm(value: unknown): value is JwsAlgorithm {
  return typeof value === 'string' && (SIGNING_ALGORITHMS as readonly string[]).includes(value);
}

/**
 * The provider's keys: the server's one key set (kept by the service-tokens plugin, published at
 * `/.well-known/jwks.json`, rotated by `citadel keys:rotate`).
 */
export function providerKeys(services: CitadelServices): SigningKeySet {
  return signingKeys(services);
}

/**
 * Called from the plugin's `init`: a retired key stays published until the longest-lived token
 * the provider signs with it (access token, ID token) has expired.
 */
export function coverProviderLifetimes(services: CitadelServices, ...lifetimesSeconds: number[]): void {
  for (const seconds of lifetimesSeconds) coverSigningLifetime(services, seconds);
}
