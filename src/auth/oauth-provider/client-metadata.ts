import {
  APPLICATION_TYPES,
  CLIENT_LIMITS,
  ID_TOKEN_ALGS,
  TOKEN_ENDPOINT_AUTH_METHODS,
  isConfidential,
  isLoopbackUri,
  isPrivateUseScheme,
  redirectUriProblem,
  type ApplicationType,
  type IdTokenAlg,
  type NewClient,
  type OAuthClient,
  type Registration,
  type TokenEndpointAuthMethod,
} from './clients.ts';
import { OIDC_SCOPES } from './scopes.ts';

/**
 * Client metadata (RFC 7591 names) as an administrator or a dynamically registering client sends
 * it, checked once for both: the errors are RFC 7591's `invalid_redirect_uri` and
 * `invalid_client_metadata`, each with the field it concerns.
 */

export type MetadataErrorCode = 'invalid_redirect_uri' | 'invalid_client_metadata';

export interface MetadataError {
  error: MetadataErrorCode;
  error_description: string;
  /** The metadata field at fault. */
  field: string;
}

/** A resource ability as a scope: `<resource>:<verb>`, never `*` or `<resource>:*`. */
const RESOURCE_SCOPE = /^[a-z][a-z0-9_-]{0,62}:(read|create|update|delete)$/;

/**
 * Whether `scope` may be allowed to a client: an OpenID Connect scope, or a resource ability
 * (`posts:read`) among `resourceScopes` when that list is given.
 */
export function isAllowableScope(scope: string, resourceScopes?: readonly string[]): boolean {
  if ((OIDC_SCOPES as readonly string[]).includes(scope)) return true;
  if (!RESOURCE_SCOPE.test(scope)) return false;
  return resourceScopes === undefined || resourceScopes.includes(scope);
}

/** The grant types a client of this kind may use. */
export function grantTypesOf(client: Pick<OAuthClient, 'token_endpoint_auth_method'>): string[] {
  return isConfidential(client)
    ? ['authorization_code', 'refresh_token', 'client_credentials']
    : ['authorization_code', 'refresh_token'];
}

export interface MetadataRules {
  registration: Registration;
  /** Scopes given to a client that asks for none (dynamic registration); absent: `scope` is required. */
  defaultScopes?: readonly string[];
  /** The resource abilities the API has (`posts:read`, …); absent: any well-formed one. */
  resourceScopes?: readonly string[];
}

type Result = { ok: true; client: NewClient } | { ok: false; error: MetadataError };

class Refusal extends Error {
  constructor(readonly detail: MetadataError) {
    super(detail.error_description);
  }
}

function refuse(
  field: string,
  description: string,
  error: MetadataErrorCode = 'invalid_client_metadata',
): never {
  throw new Refusal({ error, error_description: description, field });
}

function stringList(value: unknown, field: string, max: number, code: MetadataErrorCode): string[] {
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string'))
    refuse(field, `${field} is an array of strings.`, code);
  if (value.length > max) refuse(field, `${field} has at most ${max} entries.`, code);
  return [...new Set(value as string[])];
}

function oneOf<T extends string>(value: unknown, field: string, allowed: readonly T[], fallback: T): T {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value))
    refuse(field, `${field} is one of: ${allowed.join(', ')}.`);
  return value as T;
}

function parseScope(value: unknown, rules: MetadataRules): string[] {
  if (value === undefined || value === null || value === '') {
    if (rules.defaultScopes) return [...rules.defaultScopes];
    refuse('scope', 'scope lists the scopes the client may ask for, separated by spaces.');
  }
  if (typeof value !== 'string' || value.length > CLIENT_LIMITS.scopeLength)
    refuse('scope', 'scope is a string of scopes separated by spaces.');
  const scopes = [...new Set(value.split(' ').filter((scope) => scope !== ''))];
  if (scopes.length > CLIENT_LIMITS.scopes)
    refuse('scope', `scope has at most ${CLIENT_LIMITS.scopes} scopes.`);
  const unknown = scopes.filter((scope) => !isAllowableScope(scope, rules.resourceScopes));
  if (unknown.length > 0) refuse('scope', `Unsupported scope: ${unknown.join(' ')}.`);
  if (scopes.length === 0) refuse('scope', 'scope names at least one scope.');
  return scopes;
}

function parseAuthMethod(value: unknown, rules: MetadataRules): TokenEndpointAuthMethod {
  const method = oneOf(
    value,
    'token_endpoint_auth_method',
    TOKEN_ENDPOINT_AUTH_METHODS,
    'client_secret_basic',
  );
  // Open registration makes public clients only: whatever was asked, the answer says `none`
  // (RFC 7591 lets the server replace a requested value and tell the client).
  return rules.registration === 'dynamic' ? 'none' : method;
}

function checkTypes(field: string, value: unknown, allowed: readonly string[]): void {
  if (value === undefined || value === null) return;
  const list = stringList(value, field, 10, 'invalid_client_metadata');
  const unsupported = list.filter((item) => !allowed.includes(item));
  if (unsupported.length > 0) refuse(field, `Unsupported ${field}: ${unsupported.join(', ')}.`);
}

function parseName(value: unknown, rules: MetadataRules, redirectUris: readonly string[]): string {
  if (value === undefined || value === null || value === '') {
    if (rules.registration === 'admin') refuse('client_name', 'client_name is required.');
    // A dynamically registered client without a name is called by the host it sends users to.
    return new URL(redirectUris[0]!).host || new URL(redirectUris[0]!).protocol;
  }
  if (typeof value !== 'string') refuse('client_name', 'client_name is a string.');
  const name = value.trim();
  if (name.length === 0 || name.length > CLIENT_LIMITS.nameLength)
    refuse('client_name', `client_name has 1 to ${CLIENT_LIMITS.nameLength} characters.`);
  if ([...name].some((c) => c < ' ' || c === '\u007f'))
    refuse('client_name', 'client_name has no control characters.');
  return name;
}

function parseUris(value: unknown, field: string, type: ApplicationType, required: boolean): string[] {
  const code = field === 'redirect_uris' ? 'invalid_redirect_uri' : 'invalid_client_metadata';
  if (value === undefined || value === null) {
    if (required) refuse(field, `${field} lists at least one redirect URI.`, code);
    return [];
  }
  const uris = stringList(value, field, CLIENT_LIMITS.redirectUris, code);
  if (required && uris.length === 0) refuse(field, `${field} lists at least one redirect URI.`, code);
  for (const uri of uris) {
    const problem = redirectUriProblem(uri, type);
    if (problem) refuse(field, problem, code);
  }
  return uris;
}

/**
 * The application type of a client that names none: `native` when every redirect URI can only
 * reach an app on the user's own device (loopback http, a private-use scheme), as MCP clients
 * and CLIs register; `web` (RFC 7591's default) otherwise.
 */
function impliedApplicationType(redirectUris: unknown): ApplicationType {
  if (!Array.isArray(redirectUris) || redirectUris.length === 0) return 'web';
  const onDevice = redirectUris.every((uri) => {
    if (typeof uri !== 'string') return false;
    try {
      const url = new URL(uri);
      return isLoopbackUri(url) || isPrivateUseScheme(url.protocol);
    } catch {
      return false;
    }
  });
  return onDevice ? 'native' : 'web';
}

/** Check client metadata (a JSON object as sent) and give the client to store, or the RFC 7591 error. */
export function parseClientMetadata(body: unknown, rules: MetadataRules): Result {
  try {
    if (body === null || typeof body !== 'object' || Array.isArray(body))
      refuse('body', 'The client metadata is a JSON object.');
    const input = body as Record<string, unknown>;
    const applicationType = oneOf<ApplicationType>(
      input.application_type,
      'application_type',
      APPLICATION_TYPES,
      impliedApplicationType(input.redirect_uris),
    );
    const redirectUris = parseUris(input.redirect_uris, 'redirect_uris', applicationType, true);
    const postLogout = parseUris(
      input.post_logout_redirect_uris,
      'post_logout_redirect_uris',
      applicationType,
      false,
    );
    const method = parseAuthMethod(input.token_endpoint_auth_method, rules);
    checkTypes('response_types', input.response_types, ['code']);
    checkTypes('grant_types', input.grant_types, grantTypesOf({ token_endpoint_auth_method: method }));
    return {
      ok: true,
      client: {
        client_name: parseName(input.client_name, rules, redirectUris),
        redirect_uris: redirectUris,
        post_logout_redirect_uris: postLogout,
        application_type: applicationType,
        token_endpoint_auth_method: method,
        scope: parseScope(input.scope, rules),
        id_token_signed_response_alg: oneOf<IdTokenAlg>(
          input.id_token_signed_response_alg,
          'id_token_signed_response_alg',
          ID_TOKEN_ALGS,
          'RS256',
        ),
        registration: rules.registration,
      },
    };
  } catch (error) {
    if (error instanceof Refusal) return { ok: false, error: error.detail };
    throw error;
  }
}
