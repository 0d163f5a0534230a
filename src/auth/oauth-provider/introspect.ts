import { Type } from '@sinclair/typebox';
import { defineEndpoint } from '../../plugin-api.ts';
import { isConfidential } from './clients.ts';
import { accessTokenVerifier } from './resource-bearer.ts';
import { authenticateClient } from './token-client-auth.ts';
import { oauthError, oauthJson } from './token-response.ts';
import { findGrant, refreshTokenGrant } from './token-store.ts';
import { TokenOnlySchema } from './revoke.ts';
import { oauthProviderOptions } from './options.ts';

const Introspection = Type.Object(
  {
    active: Type.Optional(Type.Boolean()),
    scope: Type.Optional(Type.String()),
    client_id: Type.Optional(Type.String()),
    sub: Type.Optional(Type.String()),
    aud: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())])),
    iss: Type.Optional(Type.String()),
    exp: Type.Optional(Type.Integer()),
    iat: Type.Optional(Type.Integer()),
    jti: Type.Optional(Type.String()),
    token_type: Type.Optional(Type.String()),
    error: Type.Optional(Type.String()),
    error_description: Type.Optional(Type.String()),
  },
  { description: "RFC 7662: `active` and, when active, the token's claims" },
);

/**
 * RFC 7662 for confidential clients: an access token is active while it is valid and its grant
 * stands; a refresh token only for the client it was issued to.
 */
const introspect = defineEndpoint({
  method: 'POST',
  path: '/oauth2/introspect',
  action: 'oauth2.introspect',
  auth: 'anonymous',
  bearer: false,
  cors: true,
  summary: 'Token introspection for confidential clients (RFC 7662)',
  body: TokenOnlySchema,
  responses: { 200: Introspection },
  failures: [400, 401],
  secrets: ['token', 'client_secret'],
  rateLimit: { name: 'oauth-introspect:ip', max: 300, windowSeconds: 60 },
  async handler({ services, body, authorization }) {
    const authenticated = await authenticateClient(services, authorization, body);
    if ('refusal' in authenticated) return authenticated.refusal;
    const { client } = authenticated;
    if (!isConfidential(client))
      return oauthError('invalid_client', 'Only confidential clients may introspect tokens.', 401);
    if (!body.token) return oauthError('invalid_request', 'token is required.');
    const now = services.clock.now();
    const { issuer } = oauthProviderOptions(services);
    const access = await accessTokenVerifier(services).active(body.token, now);
    if (access) {
      const { claims } = access;
      return oauthJson({
        active: true,
        token_type: 'Bearer',
        scope: claims.scope.join(' '),
        client_id: claims.clientId,
        sub: claims.userId === null ? claims.clientId : String(claims.userId),
        aud: claims.audience.length === 1 ? claims.audience[0] : claims.audience,
        iss: issuer,
        exp: claims.exp,
        iat: claims.iat,
        jti: claims.jti,
      });
    }
    const refresh = await refreshTokenGrant(services.db, body.token);
    if (refresh && !refresh.used && refresh.expiresAt > now.toISOString()) {
      const grant = await findGrant(services.db, refresh.grantId);
      if (grant && grant.revoked_at === null && grant.client_id === client.client_id)
        return oauthJson({
          active: true,
          token_type: 'refresh_token',
          scope: grant.scope.join(' '),
          client_id: grant.client_id,
          sub: grant.user_id === null ? grant.client_id : String(grant.user_id),
          iss: issuer,
          exp: Math.floor(Date.parse(refresh.expiresAt) / 1000),
        });
    }
    return oauthJson({ active: false });
  },
});

export const introspectEndpoints = [introspect] as const;
