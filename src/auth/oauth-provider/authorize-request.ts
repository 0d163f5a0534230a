import type { OAuthClient } from './clients.ts';
import { findActiveClient, redirectUriMatches } from './clients.ts';
import type { CitadelServices } from '../../plugin-api.ts';
import type { AuthorizationRequest } from './consent-pending.ts';
import { coversScopes, isKnownScope, parseScope } from './scopes.ts';
import { oauthProviderOptions } from './options.ts';
import type { AuthorizeRefusal } from './consent-page.ts';
import { loginHintOf } from './login-hint.ts';

/** The query of `GET /oauth2/authorize`, every field as the client sent it. */
export interface AuthorizeQuery {
  response_type?: string;
  client_id?: string;
  redirect_uri?: string;
  scope?: string;
  state?: string;
  code_challenge?: string;
  code_challenge_method?: string;
  nonce?: string;
  prompt?: string;
  max_age?: string;
  login_hint?: string;
  resource?: string;
  request?: string;
  request_uri?: string;
}

/** An error shown on the provider's own page: the client or its redirect URI cannot be trusted. */
export interface PageError {
  kind: 'page';
  reason: AuthorizeRefusal;
}

/** An error sent back to the client's (verified) redirect URI. */
export interface RedirectError {
  kind: 'redirect';
  redirectUri: string;
  state: string | null;
  error: string;
  description: string;
}

const PKCE_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
const PROMPTS = ['none', 'login', 'consent'];

/**
 * Check an authorization request: the client and its redirect URI first (a failure there is shown
 * on a page, never redirected to), then everything else (a failure goes back to the client).
 */
export async function validateAuthorizeRequest(
  services: CitadelServices,
  query: AuthorizeQuery,
): Promise<{ client: OAuthClient; request: AuthorizationRequest } | PageError | RedirectError> {
  if (!query.client_id) return { kind: 'page', reason: 'noClient' };
  const client = await findActiveClient(services.db, query.client_id);
  if (!client) return { kind: 'page', reason: 'unknownClient' };
  if (!query.redirect_uri || !redirectUriMatches(client, query.redirect_uri))
    return { kind: 'page', reason: 'badRedirect' };
  const redirectUri = query.redirect_uri;
  const state = query.state ?? null;
  const fail = (error: string, description: string): RedirectError => ({
    kind: 'redirect',
    redirectUri,
    state,
    error,
    description,
  });
  if (query.request !== undefined) return fail('request_not_supported', 'Request objects are not supported.');
  if (query.request_uri !== undefined)
    return fail('request_uri_not_supported', 'Request objects are not supported.');
  if (query.response_type !== 'code')
    return fail('unsupported_response_type', 'Only response_type=code is supported.');
  if (!query.code_challenge)
    return fail('invalid_request', 'PKCE is required: send code_challenge with code_challenge_method=S256.');
  if (query.code_challenge_method !== 'S256')
    return fail('invalid_request', 'Only the S256 code_challenge_method is supported.');
  if (!PKCE_CHALLENGE.test(query.code_challenge))
    return fail('invalid_request', 'code_challenge must be a base64url SHA-256 (43 characters).');
  const scope = parseScope(query.scope);
  if (scope === null) return fail('invalid_scope', 'The scope parameter is malformed.');
  const unknown = scope.find((name) => !isKnownScope(name));
  if (unknown !== undefined) return fail('invalid_scope', `Unknown scope: ${unknown}.`);
  if (!coversScopes(client.scope, scope))
    return fail('invalid_scope', 'The application may not ask for some of these scopes.');
  if (scope.length === 0) return fail('invalid_scope', 'Ask for at least one scope.');
  const prompt = (query.prompt ?? '').split(' ').filter(Boolean);
  if (prompt.some((value) => !PROMPTS.includes(value)))
    return fail('invalid_request', 'prompt supports none, login and consent.');
  if (prompt.includes('none') && prompt.length > 1)
    return fail('invalid_request', 'prompt=none cannot be combined with another value.');
  let maxAge: number | null = null;
  if (query.max_age !== undefined) {
    if (!/^\d{1,9}$/.test(query.max_age))
      return fail('invalid_request', 'max_age must be a number of seconds.');
    maxAge = Number(query.max_age);
  }
  const { issuer, resourceIdentifier } = oauthProviderOptions(services);
  const resource = query.resource ?? null;
  if (resource !== null && resource !== resourceIdentifier && resource !== issuer)
    return fail('invalid_target', 'The resource is not one this server issues tokens for.');
  return {
    client,
    request: {
      clientId: client.client_id,
      redirectUri,
      scope,
      state,
      codeChallenge: query.code_challenge,
      nonce: query.nonce ?? null,
      prompt,
      maxAge,
      loginHint: loginHintOf(query.login_hint),
      resource,
    },
  };
}

/** The client's redirect URI with `params` added to its query (RFC 9207 `iss` on every answer). */
export function redirectWith(redirectUri: string, params: Record<string, string | null>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) if (value !== null) url.searchParams.set(name, value);
  return url.href;
}
