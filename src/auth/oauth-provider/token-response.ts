import type { EndpointResult } from '../../plugin-api.ts';

/** Headers of every answer of the endpoints clients call directly (RFC 6749 5.1). */
export const CLIENT_ENDPOINT_HEADERS: Readonly<Record<string, string>> = {
  'cache-control': 'no-store',
  pragma: 'no-cache',
};

/** An OAuth JSON answer (RFC 6749 5.1), never the envelope. */
export function oauthJson(json: Record<string, unknown>, statusCode = 200): EndpointResult {
  return {
    status: statusCode < 400 ? 'success' : 'error',
    statusCode,
    json,
    headers: { ...CLIENT_ENDPOINT_HEADERS },
  };
}

/** An OAuth error answer (RFC 6749 5.2): `{ error, error_description }`. */
export function oauthError(
  error: string,
  description: string,
  statusCode = 400,
  headers: Record<string, string> = {},
): EndpointResult {
  return {
    status: 'error',
    statusCode,
    json: { error, error_description: description },
    headers: { ...CLIENT_ENDPOINT_HEADERS, ...headers },
  };
}
