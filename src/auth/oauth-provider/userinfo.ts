import { Type } from '@sinclair/typebox';
import { defineEndpoint, type EndpointInput, type EndpointResult } from '../../plugin-api.ts';
import { userClaims } from './id-token.ts';
import { accessTokenVerifier } from './resource-bearer.ts';
import { oauthError, oauthJson } from './token-response.ts';
import { oauthProviderOptions } from './options.ts';

const UserInfo = Type.Object(
  {
    sub: Type.Optional(Type.String()),
    preferred_username: Type.Optional(Type.String()),
    name: Type.Optional(Type.String()),
    email: Type.Optional(Type.String()),
    email_verified: Type.Optional(Type.Boolean()),
    error: Type.Optional(Type.String()),
    error_description: Type.Optional(Type.String()),
  },
  { description: 'OpenID Connect UserInfo: the claims of the granted scopes' },
);

function bearerOf(authorization: string | undefined): string | undefined {
  const match = /^Bearer ([A-Za-z0-9._~+/-]+=*)$/i.exec(authorization?.trim() ?? '');
  return match?.[1];
}

const invalidToken = (description: string) =>
  oauthError('invalid_token', description, 401, {
    'www-authenticate': `Bearer error="invalid_token", error_description="${description}"`,
  });

async function userinfo({ services, authorization }: EndpointInput): Promise<EndpointResult> {
  const token = bearerOf(authorization);
  if (!token)
    return oauthError('invalid_request', 'Send the access token as a Bearer token.', 401, {
      'www-authenticate': 'Bearer',
    });
  const found = await accessTokenVerifier(services).active(token, services.clock.now());
  if (!found || !found.grant.user) return invalidToken('The access token is invalid, expired or revoked.');
  // A token for another resource (the API) is not one for the issuer's userinfo (RFC 8707).
  if (!found.claims.audience.includes(oauthProviderOptions(services).issuer))
    return invalidToken('The access token is for another resource.');
  if (!found.claims.scope.includes('openid'))
    return oauthError('insufficient_scope', 'The access token has no openid scope.', 403, {
      'www-authenticate': 'Bearer error="insufficient_scope", scope="openid"',
    });
  return oauthJson(userClaims(found.grant.user, found.claims.scope));
}

const common = {
  path: '/oauth2/userinfo',
  action: 'oauth2.userinfo',
  auth: 'anonymous',
  cors: true,
  responses: { 200: UserInfo },
  failures: [401, 403],
  rateLimit: { name: 'oauth-userinfo:ip', max: 300, windowSeconds: 60 },
  handler: userinfo,
} as const;

export const userinfoEndpoints = [
  defineEndpoint({ ...common, method: 'GET', summary: 'OpenID Connect UserInfo (Bearer access token)' }),
  defineEndpoint({
    ...common,
    method: 'POST',
    summary: 'OpenID Connect UserInfo (Bearer access token), POST',
  }),
] as const;
