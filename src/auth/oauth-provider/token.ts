import { createHash } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { defineEndpoint, type EndpointResult, type CitadelServices, safeEqual } from '../../plugin-api.ts';
import type { OAuthClient } from './clients.ts';
import { isConfidential } from './clients.ts';
import { mintAccessToken } from './access-token.ts';
import { mintIdToken } from './id-token.ts';
import { providerKeys } from './keys.ts';
import { oauthProviderOptions } from './options.ts';
import { coversScopes, isResourceScope, parseScope } from './scopes.ts';
import {
  createGrant,
  findGrant,
  issueRefreshToken,
  redeemCode,
  revokeGrant,
  useRefreshToken,
  type GrantRow,
} from './token-store.ts';
import { authenticateClient } from './token-client-auth.ts';
import { oauthError, oauthJson } from './token-response.ts';

const Field = (description: string) => Type.Optional(Type.String({ maxLength: 4096, description }));

export const TokenRequestSchema = Type.Object({
  grant_type: Field('`authorization_code`, `refresh_token` or `client_credentials`'),
  code: Field('authorization_code: the code'),
  redirect_uri: Field('authorization_code: the redirect URI of the authorization request'),
  code_verifier: Field('authorization_code: the PKCE verifier'),
  refresh_token: Field('refresh_token: the refresh token'),
  scope: Field('client_credentials: the scopes asked for'),
  resource: Field('RFC 8707: the resource asked for'),
  client_id: Field('client_secret_post and none: the client'),
  client_secret: Field('client_secret_post: the secret'),
});
type TokenRequest = typeof TokenRequestSchema.static;

const TokenAnswer = Type.Object(
  {
    access_token: Type.Optional(Type.String()),
    token_type: Type.Optional(Type.String()),
    expires_in: Type.Optional(Type.Integer()),
    scope: Type.Optional(Type.String()),
    id_token: Type.Optional(Type.String()),
    refresh_token: Type.Optional(Type.String()),
    error: Type.Optional(Type.String()),
    error_description: Type.Optional(Type.String()),
  },
  { description: 'RFC 6749 5.1 (success) or 5.2 (`error`, `error_description`)' },
);

const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

function s256(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}

const invalidGrant = (description: string) => oauthError('invalid_grant', description);

/** The answer of a grant: an access token, an ID token for `openid`, a refresh token for `offline_access`. */
async function issueTokens(
  services: CitadelServices,
  client: OAuthClient,
  grant: GrantRow,
  nonce: string | null,
): Promise<EndpointResult> {
  const options = oauthProviderOptions(services);
  const now = services.clock.now();
  const keys = providerKeys(services);
  const user = grant.user_id === null ? undefined : await services.users.findById(grant.user_id);
  if (grant.user_id !== null && (!user || user.active !== 1)) {
    await revokeGrant(services.db, grant.id, now);
    return invalidGrant('The account of this grant is disabled or gone.');
  }
  const access = await mintAccessToken(keys, {
    issuer: options.issuer,
    userId: grant.user_id,
    clientId: client.client_id,
    scope: grant.scope,
    audience: grant.resource ?? options.issuer,
    grantId: grant.id,
    authTime: grant.auth_time ? new Date(grant.auth_time) : null,
    ttlSeconds: options.accessTokenTtlSeconds,
    now,
  });
  const answer: Record<string, unknown> = {
    access_token: access.token,
    token_type: 'Bearer',
    expires_in: access.expiresIn,
    scope: grant.scope.join(' '),
  };
  if (user && grant.scope.includes('openid'))
    answer.id_token = await mintIdToken(keys, {
      issuer: options.issuer,
      client,
      user,
      scope: grant.scope,
      authTime: grant.auth_time,
      amr: grant.amr,
      nonce,
      ttlSeconds: options.accessTokenTtlSeconds,
      now,
    });
  if (user && grant.scope.includes('offline_access'))
    answer.refresh_token = await issueRefreshToken(
      services.db,
      grant.id,
      now,
      options.refreshTokenTtlSeconds,
    );
  return oauthJson(answer);
}

async function authorizationCodeGrant(
  services: CitadelServices,
  client: OAuthClient,
  body: TokenRequest,
): Promise<EndpointResult> {
  if (!body.code || !body.redirect_uri)
    return oauthError('invalid_request', 'code and redirect_uri are required.');
  if (!body.code_verifier || !VERIFIER.test(body.code_verifier))
    return oauthError('invalid_request', 'code_verifier is required (PKCE, 43 to 128 characters).');
  const now = services.clock.now();
  const redeemed = await redeemCode(services.db, body.code, now);
  if (!redeemed) return invalidGrant('The code is invalid.');
  if ('reused' in redeemed) {
    // A code used twice was stolen or replayed: everything issued from it ends.
    await revokeGrant(services.db, redeemed.reused, now);
    return invalidGrant('The code was already used; its tokens are revoked.');
  }
  const grant = await findGrant(services.db, redeemed.grant_id);
  if (!grant || grant.revoked_at !== null) return invalidGrant('The code is invalid.');
  if (grant.client_id !== client.client_id) {
    await revokeGrant(services.db, grant.id, now);
    return invalidGrant('The code was issued to another client.');
  }
  if (redeemed.expires_at <= now.toISOString()) return invalidGrant('The code has expired.');
  if (redeemed.redirect_uri !== body.redirect_uri)
    return invalidGrant('redirect_uri differs from the authorization request.');
  if (!safeEqual(s256(body.code_verifier), redeemed.code_challenge))
    return invalidGrant('The PKCE code_verifier does not match.');
  if (
    body.resource !== undefined &&
    body.resource !== (grant.resource ?? oauthProviderOptions(services).issuer)
  )
    return oauthError('invalid_target', 'The resource differs from the authorized one.');
  return issueTokens(services, client, grant, redeemed.nonce);
}

async function refreshTokenGrant(
  services: CitadelServices,
  client: OAuthClient,
  body: TokenRequest,
): Promise<EndpointResult> {
  if (!body.refresh_token) return oauthError('invalid_request', 'refresh_token is required.');
  const now = services.clock.now();
  const used = await useRefreshToken(services.db, body.refresh_token, now);
  if (!used) return invalidGrant('The refresh token is invalid or expired.');
  if ('reused' in used) {
    // Rotation: an old refresh token coming back means two parties hold the grant; end it.
    await revokeGrant(services.db, used.reused, now);
    return invalidGrant('The refresh token was already used; the grant is revoked.');
  }
  const grant = await findGrant(services.db, used.grantId);
  if (!grant || grant.revoked_at !== null) return invalidGrant('The grant was revoked.');
  if (grant.client_id !== client.client_id) {
    await revokeGrant(services.db, grant.id, now);
    return invalidGrant('The refresh token was issued to another client.');
  }
  if (!grant.scope.includes('offline_access')) return invalidGrant('The grant has no offline_access.');
  const asked = parseScope(body.scope);
  if (asked === null || !coversScopes(grant.scope, asked))
    return oauthError('invalid_scope', 'A refresh cannot widen the granted scopes.');
  if (
    body.resource !== undefined &&
    body.resource !== (grant.resource ?? oauthProviderOptions(services).issuer)
  )
    return oauthError('invalid_target', 'The resource differs from the authorized one.');
  return issueTokens(services, client, grant, null);
}

async function clientCredentialsGrant(
  services: CitadelServices,
  client: OAuthClient,
  body: TokenRequest,
): Promise<EndpointResult> {
  if (!isConfidential(client))
    return oauthError('unauthorized_client', 'Only confidential clients may use client_credentials.');
  const allowed = client.scope.filter(isResourceScope);
  const asked = parseScope(body.scope);
  if (asked === null) return oauthError('invalid_scope', 'The scope parameter is malformed.');
  if (!coversScopes(allowed, asked))
    return oauthError(
      'invalid_scope',
      "client_credentials grants only the client's allowed resource scopes.",
    );
  const { issuer, resourceIdentifier } = oauthProviderOptions(services);
  const resource = body.resource ?? resourceIdentifier;
  if (resource !== resourceIdentifier && resource !== issuer)
    return oauthError('invalid_target', 'The resource is not one this server issues tokens for.');
  const scope = asked.length > 0 ? asked : allowed;
  const now = services.clock.now();
  const grantId = await createGrant(
    services.db,
    { userId: null, clientId: client.client_id, scope, resource, authTime: null, amr: [] },
    now,
  );
  const grant = await findGrant(services.db, grantId);
  return issueTokens(services, client, grant!, null);
}

const token = defineEndpoint({
  method: 'POST',
  path: '/oauth2/token',
  action: 'oauth2.token',
  auth: 'anonymous',
  bearer: false,
  cors: true,
  summary: 'OAuth 2.1 token endpoint: authorization_code (PKCE), refresh_token (rotated), client_credentials',
  description:
    'Answers RFC 6749 JSON (never the envelope) with `Cache-Control: no-store`. Client authentication: `client_secret_basic`, `client_secret_post` or `none`, as the client registered.',
  body: TokenRequestSchema,
  responses: { 200: TokenAnswer },
  failures: [400, 401],
  secrets: ['code', 'code_verifier', 'refresh_token', 'client_secret'],
  rateLimit: { name: 'oauth-token:ip', max: 120, windowSeconds: 60 },
  async handler({ services, body, authorization }) {
    const authenticated = await authenticateClient(services, authorization, body);
    if ('refusal' in authenticated) return authenticated.refusal;
    const { client } = authenticated;
    switch (body.grant_type) {
      case 'authorization_code':
        return authorizationCodeGrant(services, client, body);
      case 'refresh_token':
        return refreshTokenGrant(services, client, body);
      case 'client_credentials':
        return clientCredentialsGrant(services, client, body);
      case undefined:
        return oauthError('invalid_request', 'grant_type is required.');
      default:
        return oauthError('unsupported_grant_type', 'This grant type is not supported.');
    }
  },
});

export const tokenEndpoints = [token] as const;
