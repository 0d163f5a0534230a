import type { EndpointResult, CitadelServices } from '../../plugin-api.ts';
import { findActiveClient, verifyClientSecret, type OAuthClient } from './clients.ts';
import { oauthError } from './token-response.ts';

/** The client credentials a request may carry in its body. */
export interface ClientCredentialFields {
  client_id?: string;
  client_secret?: string;
}

function decodeBasic(header: string): { id: string; secret: string } | null {
  const match = /^Basic ([A-Za-z0-9+/]+=*)$/i.exec(header.trim());
  if (!match) return null;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return null;
  try {
    // RFC 6749 2.3.1: both parts are form-urlencoded before being joined.
    const form = (part: string) => decodeURIComponent(part.replace(/\+/g, ' '));
    return { id: form(decoded.slice(0, colon)), secret: form(decoded.slice(colon + 1)) };
  } catch {
    return null;
  }
}

/**
 * Authenticate the client of a token, revocation or introspection request with the one method it
 * registered: `client_secret_basic`, `client_secret_post` or `none` (a public client names itself).
 * Anything else is 401 `invalid_client`.
 */
export async function authenticateClient(
  services: CitadelServices,
  authorization: string | undefined,
  body: ClientCredentialFields,
): Promise<{ client: OAuthClient } | { refusal: EndpointResult }> {
  const refuse = (basic: boolean) => ({
    refusal: oauthError(
      'invalid_client',
      'Client authentication failed.',
      401,
      basic ? { 'www-authenticate': 'Basic realm="oauth2"' } : {},
    ),
  });
  const basicHeader = authorization?.toLowerCase().startsWith('basic ') ? authorization : undefined;
  if (basicHeader) {
    const credentials = decodeBasic(basicHeader);
    if (!credentials || body.client_secret !== undefined) return refuse(true);
    if (body.client_id !== undefined && body.client_id !== credentials.id) return refuse(true);
    const client = await findActiveClient(services.db, credentials.id);
    if (!client || client.token_endpoint_auth_method !== 'client_secret_basic') return refuse(true);
    return verifyClientSecret(client, credentials.secret) ? { client } : refuse(true);
  }
  if (!body.client_id) return refuse(false);
  const client = await findActiveClient(services.db, body.client_id);
  if (!client) return refuse(false);
  if (body.client_secret !== undefined) {
    if (client.token_endpoint_auth_method !== 'client_secret_post') return refuse(false);
    return verifyClientSecret(client, body.client_secret) ? { client } : refuse(false);
  }
  return client.token_endpoint_auth_method === 'none' ? { client } : refuse(false);
}
