import * as oidc from 'openid-client';
import { safeEqual, isoAfter, type RequestContext } from '../../plugin-api.ts';
import type { FlowChecks } from './providers.ts';

/** The session key of the one sign-in attempt in progress. */
const FLOW_KEY = 'oauth_flow';
const PURPOSE = 'oauth-flow';

/** An attempt left unfinished this long is dropped: the provider round trip takes seconds. */
export const FLOW_TTL_SECONDS = 10 * 60;

/**
 * What the session holds: the state only as an HMAC, the PKCE verifier and nonce sealed with a
 * server key, so a leaked session store does not hand out a live attempt's secrets.
 */
interface StoredFlow {
  provider: string;
  stateHmac: string;
  sealed: string;
  expiresAt: string;
}

/**
 * Start an attempt: fresh state, PKCE verifier and (OpenID Connect) nonce, bound to this browser's
 * session only. A new attempt replaces an older one.
 */
export function startFlow(request: RequestContext, provider: string, openIdConnect: boolean): FlowChecks {
  const { clock, secrets } = request.services;
  const checks: FlowChecks = {
    state: oidc.randomState(),
    codeVerifier: oidc.randomPKCECodeVerifier(),
    nonce: openIdConnect ? oidc.randomNonce() : undefined,
  };
  const flow: StoredFlow = {
    provider,
    stateHmac: secrets.hmac(PURPOSE, `${provider}\u0000${checks.state}`),
    sealed: secrets.encrypt(
      PURPOSE,
      JSON.stringify({ codeVerifier: checks.codeVerifier, nonce: checks.nonce }),
    ),
    expiresAt: isoAfter(clock, FLOW_TTL_SECONDS),
  };
  request.session.set(FLOW_KEY, flow);
  return checks;
}

/**
 * Take the attempt out of the session (single use: whatever happens next, it is gone) and return
 * its checks when `state` matches it, for this provider, in time; else null.
 */
export function takeFlow(request: RequestContext, provider: string, state: unknown): FlowChecks | null {
  const flow = request.session.get<StoredFlow>(FLOW_KEY);
  if (flow === undefined) return null;
  request.session.delete(FLOW_KEY);
  const { clock, secrets } = request.services;
  if (
    typeof state !== 'string' ||
    state.length > 512 ||
    flow.provider !== provider ||
    typeof flow.stateHmac !== 'string' ||
    !safeEqual(flow.stateHmac, secrets.hmac(PURPOSE, `${provider}\u0000${state}`)) ||
    !(flow.expiresAt > clock.now().toISOString())
  ) {
    return null;
  }
  try {
    const { codeVerifier, nonce } = JSON.parse(secrets.decrypt(PURPOSE, flow.sealed)) as {
      codeVerifier: string;
      nonce?: string;
    };
    return { state, codeVerifier, nonce };
  } catch {
    return null;
  }
}
