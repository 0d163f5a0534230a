import { Type } from '@sinclair/typebox';
import { defineEndpoint, type CitadelServices } from '../../plugin-api.ts';
import { SIGNING_ALGORITHMS } from './keys.ts';
import { oauthProviderOptions } from './options.ts';
import { CLAIMS_SUPPORTED, supportedScopes } from './scopes.ts';
import { oauthJson } from './token-response.ts';

const CLIENT_AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'none'];

/**
 * The provider's metadata (RFC 8414 and OpenID Connect Discovery 1.0), from the configured
 * issuer only (never a forwarded header): what it lists is what the endpoints do.
 */
export function providerMetadata(services: CitadelServices): Record<string, unknown> {
  const options = oauthProviderOptions(services);
  const { issuer } = options;
  const metadata: Record<string, unknown> = {
    issuer,
    authorization_endpoint: `${issuer}/oauth2/authorize`,
    token_endpoint: `${issuer}/oauth2/token`,
    userinfo_endpoint: `${issuer}/oauth2/userinfo`,
    jwks_uri: `${issuer}/.well-known/jwks.json`,
    revocation_endpoint: `${issuer}/oauth2/revoke`,
    introspection_endpoint: `${issuer}/oauth2/introspect`,
    end_session_endpoint: `${issuer}/oauth2/end-session`,
    scopes_supported: supportedScopes(services),
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
    code_challenge_methods_supported: ['S256'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: [...SIGNING_ALGORITHMS],
    token_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
    revocation_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
    introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    claims_supported: CLAIMS_SUPPORTED,
    claims_parameter_supported: false,
    request_parameter_supported: false,
    request_uri_parameter_supported: false,
    prompt_values_supported: ['none', 'login', 'consent'],
    authorization_response_iss_parameter_supported: true,
    resource_indicators_supported: true,
  };
  if (options.dynamicRegistration) metadata.registration_endpoint = `${issuer}/oauth2/register`;
  return metadata;
}

const Metadata = Type.Object(
  {
    issuer: Type.String(),
    authorization_endpoint: Type.String(),
    token_endpoint: Type.String(),
    jwks_uri: Type.String(),
  },
  { additionalProperties: true, description: 'Authorization server metadata' },
);

const common = {
  method: 'GET',
  auth: 'anonymous',
  bearer: false,
  alwaysJson: true,
  cors: true,
  responses: { 200: Metadata },
  rateLimit: { name: 'oauth-metadata:ip', max: 600, windowSeconds: 60 },
  async handler({ services }: { services: CitadelServices }) {
    return oauthJson(providerMetadata(services));
  },
} as const;

export const discoveryEndpoints = [
  defineEndpoint({
    ...common,
    path: '/.well-known/openid-configuration',
    action: 'oauth2.openid_configuration',
    summary: 'OpenID Connect Discovery metadata',
  }),
  defineEndpoint({
    ...common,
    path: '/.well-known/oauth-authorization-server',
    action: 'oauth2.authorization_server_metadata',
    summary: 'OAuth 2.0 Authorization Server Metadata (RFC 8414)',
  }),
] as const;
