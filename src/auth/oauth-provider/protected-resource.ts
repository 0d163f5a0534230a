import { Type } from '@sinclair/typebox';
import { defineEndpoint, setBearerChallenge, type CitadelServices } from '../../plugin-api.ts';
import { oauthProviderOptions } from './options.ts';
import { isResourceScope, supportedScopes } from './scopes.ts';
import { coverProviderLifetimes } from './keys.ts';

/** Where the resource API's metadata is served (RFC 9728 §3). */
export const PROTECTED_RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';

/** The metadata document's URL, under the issuer (the configured public URL, never a forwarded host). */
export function protectedResourceMetadataUrl(services: CitadelServices): string {
  return `${oauthProviderOptions(services).issuer}${PROTECTED_RESOURCE_METADATA_PATH}`;
}

/** RFC 9728 §2: the resource API, who issues its tokens, its scopes, how a token is sent. */
export function protectedResourceMetadata(services: CitadelServices) {
  const { issuer, resourceIdentifier } = oauthProviderOptions(services);
  return {
    resource: resourceIdentifier,
    authorization_servers: [issuer],
    scopes_supported: supportedScopes(services).filter(isResourceScope),
    bearer_methods_supported: ['header'],
    resource_name: services.config.appName,
  };
}

/**
 * Called from the plugin's `init`: every 401 of the resource API names the metadata
 * (`WWW-Authenticate: Bearer resource_metadata="…"`, RFC 9728 §5.1), so a client (an MCP client)
 * finds where to get a token.
 */
export function announceProtectedResource(services: CitadelServices): void {
  setBearerChallenge(services, `resource_metadata="${protectedResourceMetadataUrl(services)}"`);
}

const metadata = defineEndpoint({
  method: 'GET',
  path: PROTECTED_RESOURCE_METADATA_PATH,
  action: 'oauth.protected_resource',
  auth: 'anonymous',
  alwaysJson: true,
  cors: true,
  summary: 'OAuth 2.0 Protected Resource Metadata (RFC 9728) of the resource API',
  description:
    'The resource identifier (the `aud` of its access tokens), the authorization server, the ' +
    'resource scopes and the bearer methods. Open to any origin (CORS).',
  responses: {
    200: Type.Object({
      resource: Type.String(),
      authorization_servers: Type.Array(Type.String()),
      scopes_supported: Type.Array(Type.String()),
      bearer_methods_supported: Type.Array(Type.Literal('header')),
      resource_name: Type.String(),
    }),
  },
  rateLimit: { name: 'oauth-protected-resource:ip', max: 600, windowSeconds: 60 },
  async handler({ services }) {
    return {
      status: 'success' as const,
      json: protectedResourceMetadata(services),
      headers: { 'cache-control': 'public, max-age=300' },
    };
  },
});

/** The resource side's endpoints. */
export const resourceEndpoints = [metadata] as const;

/**
 * The resource side's start-up (from the plugin's `init`): the 401 challenge names the metadata,
 * and retired signing keys stay published until the last access token has expired.
 */
export function initResourceServer(services: CitadelServices): void {
  announceProtectedResource(services);
  coverProviderLifetimes(services, oauthProviderOptions(services).accessTokenTtlSeconds);
}
