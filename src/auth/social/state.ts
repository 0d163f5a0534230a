import type { FastifyRequest } from 'fastify';
import * as oidc from 'openid-client';
import { safeEqual } from '../../crypto.ts';
import type { FlowChecks } from './providers.ts';

/** The session key of the one sign-in attempt in progress. */
const FLOW_KEY = 'oauth_flow';

/** An attempt left unfinished this long is dropped: the provider round trip takes seconds. */
export const FLOW_TTL_SECONDS = 10 * 60;

interface StoredFlow extends FlowChecks {
  provider: string;
  expiresAt: string;
}

/**
 * Start an attempt: fresh state, PKCE verifier and (OpenID Connect) nonce, kept in this browser's
 * session only. A new attempt replaces an older one.
 */
export function startFlow(request: FastifyRequest, provider: string, openIdConnect: boolean): FlowChecks {
  const now = request.server.citadel.clock.now();
  const flow: StoredFlow = {
    provider,
    state: oidc.randomState(),
    codeVerifier: oidc.randomPKCECodeVerifier(),
    nonce: openIdConnect ? oidc.randomNonce() : undefined,
    expiresAt: new Date(now.getTime() + FLOW_TTL_SECONDS * 1000).toISOString(),
  };
  request.session.set(FLOW_KEY, flow);
  return { state: flow.state, codeVerifier: flow.codeVerifier, nonce: flow.nonce };
}

/**
 * Take the attempt out of the session (single use: whatever happens next, it is gone) and return
 * its checks when `state` matches it, for this provider, in time; else null.
 */
export function takeFlow(request: FastifyRequest, provider: string, state: unknown): FlowChecks | null {
  const flow = request.session.get<StoredFlow>(FLOW_KEY);
  if (flow === undefined) return null;
  request.session.delete(FLOW_KEY);
  const now = request.server.citadel.clock.now().toISOString();
  if (
    typeof state !== 'string' ||
    flow.provider !== provider ||
    typeof flow.state !== 'string' ||
    !safeEqual(flow.state, state) ||
    !(flow.expiresAt > now)
  ) {
    return null;
  }
  return { state: flow.state, codeVerifier: flow.codeVerifier, nonce: flow.nonce };
}
