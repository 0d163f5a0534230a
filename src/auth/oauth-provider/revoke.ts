import { Type } from '@sinclair/typebox';
import { defineEndpoint } from '../../plugin-api.ts';
import { accessTokenVerifier } from './resource-bearer.ts';
import { authenticateClient } from './token-client-auth.ts';
import { oauthError, oauthJson } from './token-response.ts';
import { findGrant, refreshTokenGrant, revokeGrant } from './token-store.ts';

const Field = (description: string) => Type.Optional(Type.String({ maxLength: 8192, description }));

export const TokenOnlySchema = Type.Object({
  token: Field('The token'),
  token_type_hint: Field('`access_token` or `refresh_token`'),
  client_id: Field('client_secret_post and none: the client'),
  client_secret: Field('client_secret_post: the secret'),
});

/**
 * RFC 7009: a client revokes one of its tokens. A refresh token or an access token ends its whole
 * grant (every token issued from it). An unknown token, or another client's, answers 200 too.
 */
const revoke = defineEndpoint({
  method: 'POST',
  path: '/oauth2/revoke',
  action: 'oauth2.revoke',
  auth: 'anonymous',
  bearer: false,
  cors: true,
  summary: 'Revoke a refresh or access token and its grant (RFC 7009)',
  body: TokenOnlySchema,
  responses: { 200: Type.Object({}, { description: 'Revoked, or nothing to revoke' }) },
  failures: [400, 401],
  secrets: ['token', 'client_secret'],
  rateLimit: { name: 'oauth-revoke:ip', max: 120, windowSeconds: 60 },
  async handler({ services, body, authorization }) {
    const authenticated = await authenticateClient(services, authorization, body);
    if ('refusal' in authenticated) return authenticated.refusal;
    const { client } = authenticated;
    if (!body.token) return oauthError('invalid_request', 'token is required.');
    const now = services.clock.now();
    let grantId: number | undefined = (await refreshTokenGrant(services.db, body.token))?.grantId;
    if (grantId === undefined)
      grantId = (await accessTokenVerifier(services).claims(body.token, now))?.grantId;
    if (grantId !== undefined) {
      const grant = await findGrant(services.db, grantId);
      // Only the client the token was issued to can revoke it.
      if (grant && grant.client_id === client.client_id) await revokeGrant(services.db, grant.id, now);
    }
    return oauthJson({});
  },
});

export const revokeEndpoints = [revoke] as const;
