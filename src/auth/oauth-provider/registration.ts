import { Type } from '@sinclair/typebox';
import { defineEndpoint } from '../../plugin-api.ts';
import { createClient } from './clients.ts';
import { parseClientMetadata } from './client-metadata.ts';
import { isResourceScope, supportedScopes } from './scopes.ts';
import { clientMetadata } from './client-schema.ts';
import { oauthProviderOptions } from './options.ts';

/**
 * Dynamic client registration (RFC 7591), as MCP clients use it: anyone may register a public
 * client (no secret, PKCE), limited per client address. The answer and its errors are RFC 7591's
 * own JSON; a registered client is marked `dynamic` and shown as not verified on the consent page.
 */

const metadataField = (description: string) => Type.Optional(Type.Unknown({ description }));

const RegistrationBody = Type.Object({
  redirect_uris: metadataField(
    'Redirect URIs (required): https, or http://127.0.0.1 with any port for native apps',
  ),
  client_name: metadataField('Shown to users on the consent page, marked as not verified'),
  token_endpoint_auth_method: metadataField(
    'Always answered as `none`: open registration makes public clients',
  ),
  grant_types: metadataField('`authorization_code`, `refresh_token`'),
  response_types: metadataField('`code`'),
  application_type: metadataField('`web` (default) or `native`'),
  scope: metadataField(
    'Scopes separated by spaces; absent: every scope the server supports (users still consent to each)',
  ),
  post_logout_redirect_uris: metadataField('Where RP-initiated logout may return'),
  id_token_signed_response_alg: metadataField('`RS256` (default) or `EdDSA`'),
});

const RegisteredClient = Type.Object({
  client_id: Type.String(),
  client_id_issued_at: Type.Integer({ description: 'Seconds since the epoch' }),
  client_name: Type.String(),
  redirect_uris: Type.Array(Type.String()),
  post_logout_redirect_uris: Type.Array(Type.String()),
  application_type: Type.String(),
  token_endpoint_auth_method: Type.Literal('none'),
  grant_types: Type.Array(Type.String()),
  response_types: Type.Array(Type.String()),
  scope: Type.String(),
  id_token_signed_response_alg: Type.String(),
});

const register = defineEndpoint({
  method: 'POST',
  path: '/oauth2/register',
  action: 'oauth.register',
  auth: 'anonymous',
  // Clients of any origin call it directly, with no browser session to protect.
  csrfExempt: true,
  cors: true,
  jsonOnly: true,
  summary: 'Register a public OAuth client (RFC 7591 dynamic client registration)',
  description:
    "Served when `oauthProvider({ dynamicRegistration: true })`. Answers with the client's metadata and `client_id_issued_at` (201) or an RFC 7591 error (400 `{ error: invalid_redirect_uri | invalid_client_metadata, error_description }`); at most `registrationLimit` registrations per client address and window (429 with `Retry-After`).",
  body: RegistrationBody,
  // A 400 of the metadata is RFC 7591's own body ({ error, error_description }); one of the body
  // itself (unreadable JSON) is Citadel's envelope, so 400 has no single schema to declare.
  failures: [400],
  responses: { 201: RegisteredClient },
  rateLimit: {
    name: 'oauth:register',
    max: (services) => oauthProviderOptions(services).registrationLimit.max,
    windowSeconds: (services) => oauthProviderOptions(services).registrationLimit.windowSeconds,
    per: 'ip',
  },
  async handler({ body, services }) {
    const parsed = parseClientMetadata(body, {
      registration: 'dynamic',
      // A client that names no scope (Copilot CLI) may ask for any supported one; the user
      // consents to each on the consent page, as for a client that listed them all.
      defaultScopes: supportedScopes(services),
      resourceScopes: supportedScopes(services).filter(isResourceScope),
    });
    if (!parsed.ok) {
      const { error, error_description } = parsed.error;
      return { status: 'error', statusCode: 400, json: { error, error_description } };
    }
    const now = services.clock.now();
    const { client } = await createClient(services.db, parsed.client, now);
    const {
      disabled_at: _d,
      secret_rotated_at: _s,
      created_at: _c,
      registration: _r,
      ...metadata
    } = clientMetadata(client);
    return {
      status: 'success',
      statusCode: 201,
      json: { ...metadata, client_id_issued_at: Math.floor(now.getTime() / 1000) },
      headers: { 'cache-control': 'no-store' },
    };
  },
});

/** `POST /oauth2/register`, served when dynamic registration is on. */
export const registrationEndpoints = [register] as const;
