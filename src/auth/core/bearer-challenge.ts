import type { CitadelServices } from './services.ts';

const challenges = new WeakMap<CitadelServices, string>();

/**
 * Auth-params every 401 of the resource API adds to its `WWW-Authenticate: Bearer` challenge
 * (the OAuth provider's `resource_metadata="…"`, RFC 9728 §5.1). Set by a plugin's `init`.
 */
export function setBearerChallenge(services: CitadelServices, params: string): void {
  challenges.set(services, params);
}

/** The auth-params set for this server, or undefined. */
export function bearerChallenge(services: CitadelServices): string | undefined {
  return challenges.get(services);
}

/**
 * A `WWW-Authenticate` value with `params` added to its Bearer challenge: `Bearer` alone becomes
 * `Bearer <params>`, `Bearer error="invalid_token"` becomes `Bearer error="invalid_token", <params>`.
 */
export function withChallengeParams(header: string, params: string): string {
  const trimmed = header.trim();
  if (!/^bearer\b/i.test(trimmed)) return `${trimmed}, Bearer ${params}`;
  return /^bearer$/i.test(trimmed) ? `Bearer ${params}` : `${trimmed}, ${params}`;
}
