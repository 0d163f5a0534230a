import type { Kysely, Selectable } from 'kysely';
import { type Database, randomToken, safeEqual, sha256Hex } from '../../plugin-api.ts';
import type { OAuthClientsTable } from './tables.ts';
import './tables.ts';

/**
 * The client store: registered applications (relying parties), their redirect URIs and secrets.
 * A secret is 32 random bytes, shown once and kept as its SHA-256; client ids are random and
 * carry no meaning. Redirect URIs are checked here, once, for every way a client is registered.
 */

export type ApplicationType = 'web' | 'native';
export type TokenEndpointAuthMethod = 'client_secret_basic' | 'client_secret_post' | 'none';
export type IdTokenAlg = 'RS256' | 'EdDSA';
export type Registration = 'admin' | 'dynamic';

export const APPLICATION_TYPES: readonly ApplicationType[] = ['web', 'native'];
export const TOKEN_ENDPOINT_AUTH_METHODS: readonly TokenEndpointAuthMethod[] = [
  'client_secret_basic',
  'client_secret_post',
  'none',
];
export const ID_TOKEN_ALGS: readonly IdTokenAlg[] = ['RS256', 'EdDSA'];

/** Limits of what a client may register. */
export const CLIENT_LIMITS = {
  nameLength: 200,
  redirectUris: 20,
  uriLength: 2000,
  scopes: 100,
  scopeLength: 4000,
} as const;

/** A client as stored, with its redirect URIs and scopes decoded. */
export interface OAuthClient {
  id: number;
  client_id: string;
  client_name: string;
  redirect_uris: string[];
  post_logout_redirect_uris: string[];
  application_type: ApplicationType;
  token_endpoint_auth_method: TokenEndpointAuthMethod;
  /** The scopes the client may ask for. */
  scope: string[];
  id_token_signed_response_alg: IdTokenAlg;
  registration: Registration;
  disabled_at: string | null;
  secret_rotated_at: string | null;
  created_at: string;
  /** SHA-256 hex of the secret; null for a public client. Never leaves the server. */
  client_secret_hash: string | null;
}

/** What a client's owner or an administrator sees: everything but the secret's hash. */
export type OAuthClientView = Omit<OAuthClient, 'id' | 'client_secret_hash'>;

/** A new client's metadata, validated (see `client-metadata.ts`). */
export type NewClient = Pick<
  OAuthClient,
  | 'client_name'
  | 'redirect_uris'
  | 'post_logout_redirect_uris'
  | 'application_type'
  | 'token_endpoint_auth_method'
  | 'scope'
  | 'id_token_signed_response_alg'
  | 'registration'
>;

/** Whether a client authenticates at the token endpoint (has a secret). */
export function isConfidential(client: Pick<OAuthClient, 'token_endpoint_auth_method'>): boolean {
  return client.token_endpoint_auth_method !== 'none';
}

function jsonList(text: string): string[] {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
  } catch {
    return [];
  }
}

function fromRow(row: Selectable<OAuthClientsTable>): OAuthClient {
  return {
    id: Number(row.id),
    client_id: row.client_id,
    client_name: row.client_name,
    redirect_uris: jsonList(row.redirect_uris),
    post_logout_redirect_uris: jsonList(row.post_logout_redirect_uris),
    application_type: row.application_type,
    token_endpoint_auth_method: row.token_endpoint_auth_method,
    scope: row.scope.split(' ').filter((scope) => scope !== ''),
    id_token_signed_response_alg: row.id_token_signed_response_alg,
    registration: row.registration,
    disabled_at: row.disabled_at,
    secret_rotated_at: row.secret_rotated_at,
    created_at: row.created_at,
    client_secret_hash: row.client_secret_hash,
  };
}

/** A client without its secret's hash and row id. */
export function clientView(client: OAuthClient): OAuthClientView {
  const { id: _id, client_secret_hash: _hash, ...view } = client;
  return view;
}

/** A new secret: 32 random bytes (base64url), and the hash that is stored. */
function newSecret(): { secret: string; hash: string } {
  const secret = randomToken(32);
  return { secret, hash: sha256Hex(secret) };
}

/**
 * Register a client: a random `client_id`, and for a confidential client a secret returned once
 * (only its hash is stored).
 */
export async function createClient(
  db: Kysely<Database>,
  input: NewClient,
  now: Date,
): Promise<{ client: OAuthClient; clientSecret: string | null }> {
  const secret = isConfidential(input) ? newSecret() : null;
  const clientId = randomToken(16);
  await db
    .insertInto('oauth_clients')
    .values({
      client_id: clientId,
      client_secret_hash: secret?.hash ?? null,
      client_name: input.client_name,
      redirect_uris: JSON.stringify(input.redirect_uris),
      post_logout_redirect_uris: JSON.stringify(input.post_logout_redirect_uris),
      application_type: input.application_type,
      token_endpoint_auth_method: input.token_endpoint_auth_method,
      scope: input.scope.join(' '),
      id_token_signed_response_alg: input.id_token_signed_response_alg,
      registration: input.registration,
      disabled_at: null,
      secret_rotated_at: null,
      created_at: now.toISOString(),
    })
    .execute();
  const client = await getClient(db, clientId);
  if (!client) throw new Error('the new client was not stored');
  return { client, clientSecret: secret?.secret ?? null };
}

/**
 * A client by its id, disabled or not. The id is compared exactly once more in JS: MariaDB's
 * default collation would also match a case variant.
 */
export async function getClient(db: Kysely<Database>, clientId: string): Promise<OAuthClient | undefined> {
  if (clientId === '' || clientId.length > 64) return undefined;
  const row = await db
    .selectFrom('oauth_clients')
    .selectAll()
    .where('client_id', '=', clientId)
    .executeTakeFirst();
  return row && row.client_id === clientId ? fromRow(row) : undefined;
}

/** A client that may take part in a flow now: registered and not disabled. */
export async function findActiveClient(
  db: Kysely<Database>,
  clientId: string,
): Promise<OAuthClient | undefined> {
  const client = await getClient(db, clientId);
  return client && client.disabled_at === null ? client : undefined;
}

/** Every client, oldest first. */
export async function listClients(db: Kysely<Database>): Promise<OAuthClient[]> {
  const rows = await db.selectFrom('oauth_clients').selectAll().orderBy('id', 'asc').execute();
  return rows.map(fromRow);
}

/**
 * A new secret for a confidential client (the old one stops working at once); undefined for an
 * unknown client, null for a public one (it has no secret).
 */
export async function rotateClientSecret(
  db: Kysely<Database>,
  clientId: string,
  now: Date,
): Promise<string | null | undefined> {
  const client = await getClient(db, clientId);
  if (!client) return undefined;
  if (!isConfidential(client)) return null;
  const secret = newSecret();
  await db
    .updateTable('oauth_clients')
    .set({ client_secret_hash: secret.hash, secret_rotated_at: now.toISOString() })
    .where('id', '=', client.id)
    .execute();
  return secret.secret;
}

/**
 * Disable a client (no new authorization, token or refresh; its grants are revoked, so the tokens
 * already issued stop working) or enable it again. False for an unknown client.
 */
export async function setClientDisabled(
  db: Kysely<Database>,
  clientId: string,
  disabled: boolean,
  now: Date,
): Promise<boolean> {
  const client = await getClient(db, clientId);
  if (!client) return false;
  const at = now.toISOString();
  await db.transaction().execute(async (trx) => {
    await trx
      .updateTable('oauth_clients')
      .set({ disabled_at: disabled ? (client.disabled_at ?? at) : null })
      .where('id', '=', client.id)
      .execute();
    if (disabled) await revokeClientGrants(trx, client.client_id, at);
  });
  return true;
}

/** Revoke every live grant of a client: its refresh and access tokens stop working. */
async function revokeClientGrants(db: Kysely<Database>, clientId: string, at: string): Promise<void> {
  await db
    .updateTable('oauth_grants')
    .set({ revoked_at: at })
    .where('client_id', '=', clientId)
    .where('revoked_at', 'is', null)
    .execute();
}

/**
 * Delete a client: its consents go, its grants are revoked (their tokens stop working), and its
 * id can never sign anyone in again. False for an unknown client.
 */
export async function deleteClient(db: Kysely<Database>, clientId: string, now: Date): Promise<boolean> {
  const client = await getClient(db, clientId);
  if (!client) return false;
  await db.transaction().execute(async (trx) => {
    await revokeClientGrants(trx, client.client_id, now.toISOString());
    await trx.deleteFrom('oauth_consents').where('client_id', '=', client.client_id).execute();
    await trx.deleteFrom('oauth_pending_authorizations').where('client_id', '=', client.client_id).execute();
    await trx.deleteFrom('oauth_clients').where('id', '=', client.id).execute();
  });
  return true;
}

/**
 * Whether `secret` is the client's secret, in constant time (the hashes are compared, so the
 * comparison's length never depends on what was sent). Always false for a public client.
 */
export function verifyClientSecret(client: Pick<OAuthClient, 'client_secret_hash'>, secret: string): boolean {
  const expected = client.client_secret_hash ?? sha256Hex(randomToken(32));
  const matches = safeEqual(sha256Hex(secret), expected);
  return matches && client.client_secret_hash !== null;
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** An `http:` URI on the loopback interface (RFC 8252 section 7.3). */
export function isLoopbackUri(url: URL): boolean {
  return url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname);
}

/** Schemes no app may claim for a redirect: they run or read something in the browser itself. */
const FORBIDDEN_SCHEMES = new Set([
  'javascript:',
  'data:',
  'vbscript:',
  'file:',
  'blob:',
  'about:',
  'filesystem:',
  'ws:',
  'wss:',
  'ftp:',
  'http:',
]);

/**
 * A private-use scheme of a native app (RFC 8252 section 7.1): `com.example.app:`, `cursor:`. A
 * reversed domain is advised, not required: clients in use register short names.
 */
export function isPrivateUseScheme(protocol: string): boolean {
  return /^[a-z][a-z0-9+.-]*:$/.test(protocol) && protocol !== 'https:' && !FORBIDDEN_SCHEMES.has(protocol);
}

/**
 * Why a redirect URI cannot be registered, or null when it can: absolute, no fragment, no
 * wildcard, no user info; `https:`, or for a native client also `http:` on the loopback
 * interface or a private-use scheme.
 */
export function redirectUriProblem(uri: string, applicationType: ApplicationType): string | null {
  if (uri.length === 0 || uri.length > CLIENT_LIMITS.uriLength)
    return `A redirect URI has 1 to ${CLIENT_LIMITS.uriLength} characters.`;
  if ([...uri].some((c) => c <= ' ' || c === '\u007f'))
    return 'A redirect URI has no spaces or control characters.';
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return `Not an absolute URI: ${uri}`;
  }
  if (uri.includes('#')) return `A redirect URI has no fragment: ${uri}`;
  if (uri.includes('*')) return `A redirect URI has no wildcard: ${uri}`;
  if (url.username !== '' || url.password !== '')
    return `A redirect URI has no user name or password: ${uri}`;
  if (url.protocol === 'https:') return url.hostname === '' ? `No host: ${uri}` : null;
  if (applicationType === 'native') {
    if (isLoopbackUri(url)) return null;
    if (isPrivateUseScheme(url.protocol)) return null;
    return `A native client's redirect URI is https, http on the loopback interface (127.0.0.1, [::1], localhost) or a private-use scheme such as com.example.app: ${uri}`;
  }
  return `A web client's redirect URI uses https: ${uri}`;
}

/**
 * Whether the redirect URI a request names is one the client registered: the exact string, or for
 * a native client a registered loopback URI with any port (RFC 8252 section 7.3), everything else
 * (scheme, host, path, query) the same.
 */
export function redirectUriMatches(
  client: Pick<OAuthClient, 'redirect_uris' | 'application_type'>,
  requested: string,
): boolean {
  if (client.redirect_uris.includes(requested)) return true;
  if (client.application_type !== 'native') return false;
  let asked: URL;
  try {
    asked = new URL(requested);
  } catch {
    return false;
  }
  if (!isLoopbackUri(asked) || requested.includes('#')) return false;
  return client.redirect_uris.some((registered) => {
    let candidate: URL;
    try {
      candidate = new URL(registered);
    } catch {
      return false;
    }
    if (!isLoopbackUri(candidate) || candidate.hostname !== asked.hostname) return false;
    // The registered URI with the asked port, compared as strings: no other part may differ,
    // not even by a normalization (dot segments, escapes).
    candidate.port = asked.port;
    const href = candidate.href;
    const bare = candidate.pathname === '/' && candidate.search === '' ? href.slice(0, -1) : href;
    return requested === href || requested === bare;
  });
}
