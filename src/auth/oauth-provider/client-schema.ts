import { Type, type Static } from '@sinclair/typebox';
import { grantTypesOf } from './client-metadata.ts';
import type { OAuthClient } from './clients.ts';

/** A registered client as the admin API and registration describe it (RFC 7591 names, never a secret). */
export const ClientSchema = Type.Object({
  client_id: Type.String(),
  client_name: Type.String(),
  redirect_uris: Type.Array(Type.String()),
  post_logout_redirect_uris: Type.Array(Type.String()),
  application_type: Type.Union([Type.Literal('web'), Type.Literal('native')]),
  token_endpoint_auth_method: Type.Union([
    Type.Literal('client_secret_basic'),
    Type.Literal('client_secret_post'),
    Type.Literal('none'),
  ]),
  grant_types: Type.Array(Type.String()),
  response_types: Type.Array(Type.String()),
  scope: Type.String({ description: 'The scopes the client may ask for, separated by spaces' }),
  id_token_signed_response_alg: Type.Union([Type.Literal('RS256'), Type.Literal('EdDSA')]),
  registration: Type.Union([Type.Literal('admin'), Type.Literal('dynamic')], {
    description: '`dynamic`: registered through POST /oauth2/register, shown as not verified',
  }),
  disabled_at: Type.Union([Type.String(), Type.Null()]),
  secret_rotated_at: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String(),
});

export type ClientMetadataView = Static<typeof ClientSchema>;

/** A client's metadata as answered: scopes as one string, grant and response types spelled out. */
export function clientMetadata(client: OAuthClient): ClientMetadataView {
  return {
    client_id: client.client_id,
    client_name: client.client_name,
    redirect_uris: client.redirect_uris,
    post_logout_redirect_uris: client.post_logout_redirect_uris,
    application_type: client.application_type,
    token_endpoint_auth_method: client.token_endpoint_auth_method,
    grant_types: grantTypesOf(client),
    response_types: ['code'],
    scope: client.scope.join(' '),
    id_token_signed_response_alg: client.id_token_signed_response_alg,
    registration: client.registration,
    disabled_at: client.disabled_at,
    secret_rotated_at: client.secret_rotated_at,
    created_at: client.created_at,
  };
}
