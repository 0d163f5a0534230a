import { Type } from '@sinclair/typebox';
import {
  ConflictError,
  NotFoundError,
  ValidationError,
  defineEndpoint,
  type EndpointInput,
  Envelope,
  isAdmin,
} from '../../plugin-api.ts';
import {
  createClient,
  deleteClient,
  getClient,
  listClients,
  rotateClientSecret,
  setClientDisabled,
  CLIENT_LIMITS,
} from './clients.ts';
import { parseClientMetadata } from './client-metadata.ts';
import { isResourceScope, supportedScopes } from './scopes.ts';
import { ClientSchema, clientMetadata } from './client-schema.ts';
import { adminClientPage, adminClientsPage, type AdminClientsPageProps } from './admin-clients-pages.ts';

/**
 * The administration of OAuth clients: register (the secret shown once), list, show, rotate the
 * secret, disable, enable, delete. Administrators only; every change needs sudo.
 */

const ClientIdParams = Type.Object({
  client_id: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' }),
});

/** A list field: a JSON array, or for HTML forms one string with an entry per line. */
const listField = (description: string) =>
  Type.Union(
    [
      Type.Array(Type.String({ maxLength: CLIENT_LIMITS.uriLength }), {
        maxItems: CLIENT_LIMITS.redirectUris,
      }),
      Type.String({ maxLength: CLIENT_LIMITS.uriLength * CLIENT_LIMITS.redirectUris }),
    ],
    { description },
  );

const CreateClientBody = Type.Object({
  client_name: Type.String({ minLength: 1, maxLength: CLIENT_LIMITS.nameLength }),
  redirect_uris: listField('Redirect URIs: https, or for a native client http on the loopback interface'),
  post_logout_redirect_uris: Type.Optional(listField('Where RP-initiated logout may send the browser back')),
  application_type: Type.Optional(
    Type.Union([Type.Literal('web'), Type.Literal('native')], { description: 'Default `web`' }),
  ),
  token_endpoint_auth_method: Type.Union(
    [Type.Literal('client_secret_basic'), Type.Literal('client_secret_post'), Type.Literal('none')],
    { description: '`none`: a public client (no secret, PKCE only)' },
  ),
  scope: Type.Union(
    [
      Type.String({ maxLength: CLIENT_LIMITS.scopeLength }),
      Type.Array(Type.String({ maxLength: 100 }), { maxItems: CLIENT_LIMITS.scopes }),
    ],
    { description: 'The scopes the client may ask for, separated by spaces (forms: one per checkbox)' },
  ),
  id_token_signed_response_alg: Type.Optional(
    Type.Union([Type.Literal('RS256'), Type.Literal('EdDSA')], { description: 'Default `RS256`' }),
  ),
});

/** Form input as lists: one entry per line (or separated by spaces). */
function asList(value: string | string[] | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value.split(/\s+/).filter((entry) => entry !== '') : value;
}

type PageInput = EndpointInput<{ client_id?: string }, unknown, unknown>;

/** What the pages show: every client (the list) or one; null for anyone but an administrator. */
async function pageProps(input: PageInput): Promise<AdminClientsPageProps> {
  const { caller, services } = input;
  const scopes = supportedScopes(services);
  const allowed =
    caller !== null && isAdmin(caller.user) && !(caller.via === 'session' && caller.impersonator);
  if (!allowed) return { clients: null, client: null, scopes };
  const clientId = input.params.client_id;
  if (clientId !== undefined) {
    const client = await getClient(services.db, clientId);
    return { clients: null, client: client ? clientMetadata(client) : null, scopes };
  }
  return { clients: (await listClients(services.db)).map(clientMetadata), client: null, scopes };
}

const changeLimit = {
  name: 'oauth:admin-clients',
  max: 120,
  windowSeconds: 60,
  per: 'user',
} as const;

const list = defineEndpoint({
  method: 'GET',
  path: '/admin/oauth/clients',
  action: 'oauth.clients',
  auth: 'admin',
  ability: 'admin:read',
  summary: 'Registered OAuth clients (administrators)',
  failures: [403],
  responses: { 200: Envelope({ data: Type.Object({ clients: Type.Array(ClientSchema) }) }) },
  rateLimit: { ...changeLimit, name: 'oauth:admin-clients:read', max: 600 },
  page: adminClientsPage,
  pageProps,
  async handler({ services }) {
    const clients = (await listClients(services.db)).map(clientMetadata);
    return { status: 'success', data: { clients }, render: true };
  },
});

const create = defineEndpoint({
  method: 'POST',
  path: '/admin/oauth/clients',
  action: 'oauth.client_create',
  auth: 'admin',
  ability: 'admin:create',
  summary:
    'Register an OAuth client; a confidential one gets its secret in this answer only (administrators, sudo)',
  body: CreateClientBody,
  failures: [403],
  responses: {
    201: Envelope({
      data: Type.Object({
        client_id: Type.String(),
        client_secret: Type.Optional(Type.String({ description: 'Confidential clients: shown once' })),
        client: ClientSchema,
      }),
    }),
  },
  rateLimit: changeLimit,
  page: adminClientsPage,
  pageProps,
  async handler({ body, services }) {
    const parsed = parseClientMetadata(
      {
        ...body,
        redirect_uris: asList(body.redirect_uris),
        post_logout_redirect_uris: asList(body.post_logout_redirect_uris),
        scope: Array.isArray(body.scope) ? body.scope.join(' ') : body.scope,
      },
      { registration: 'admin', resourceScopes: supportedScopes(services).filter(isResourceScope) },
    );
    if (!parsed.ok) throw new ValidationError({ [parsed.error.field]: parsed.error.error_description });
    const { client, clientSecret } = await createClient(services.db, parsed.client, services.clock.now());
    return {
      status: 'success',
      statusCode: 201,
      message: clientSecret
        ? `${client.client_name} is registered. Copy its secret now: it will not be shown again.`
        : `${client.client_name} is registered.`,
      data: {
        client_id: client.client_id,
        ...(clientSecret ? { client_secret: clientSecret } : {}),
        client: clientMetadata(client),
      },
      // The secret is on this page only: a redirect would lose it.
      render: true,
    };
  },
});

const show = defineEndpoint({
  method: 'GET',
  path: '/admin/oauth/clients/:client_id',
  action: 'oauth.client',
  auth: 'admin',
  ability: 'admin:read',
  summary: 'One OAuth client, without its secret (administrators)',
  params: ClientIdParams,
  failures: [403, 404],
  responses: { 200: Envelope({ data: Type.Object({ client: ClientSchema }) }) },
  rateLimit: { ...changeLimit, name: 'oauth:admin-clients:read', max: 600 },
  page: adminClientPage,
  pageProps,
  async handler({ params, services }) {
    const client = await getClient(services.db, params.client_id);
    if (!client) throw new NotFoundError('Client not found.');
    return { status: 'success', data: { client: clientMetadata(client) }, render: true };
  },
});

/** The declaration every change of one client shares. */
const clientChange = {
  auth: 'admin',
  params: ClientIdParams,
  failures: [403, 404],
  rateLimit: changeLimit,
  page: adminClientPage,
  pageProps,
} as const;

const rotate = defineEndpoint({
  ...clientChange,
  method: 'POST',
  path: '/admin/oauth/clients/:client_id/secret',
  action: 'oauth.client_secret',
  ability: 'admin:update',
  summary:
    'A new secret for a confidential client, shown once; the old one stops working (administrators, sudo)',
  failures: [403, 404, 409],
  responses: {
    200: Envelope({ data: Type.Object({ client_id: Type.String(), client_secret: Type.String() }) }),
  },
  async handler({ params, services }) {
    const secret = await rotateClientSecret(services.db, params.client_id, services.clock.now());
    if (secret === undefined) throw new NotFoundError('Client not found.');
    if (secret === null) throw new ConflictError('A public client has no secret.');
    return {
      status: 'success',
      message: 'New secret issued. Copy it now: it will not be shown again. The old secret no longer works.',
      data: { client_id: params.client_id, client_secret: secret },
      render: true,
    };
  },
});

const disable = defineEndpoint({
  ...clientChange,
  method: 'POST',
  path: '/admin/oauth/clients/:client_id/disable',
  action: 'oauth.client_disable',
  ability: 'admin:update',
  summary:
    'Disable a client: no new sign-in or token, and the tokens it holds stop working (administrators, sudo)',
  responses: { 200: Envelope() },
  async handler({ params, services }) {
    if (!(await setClientDisabled(services.db, params.client_id, true, services.clock.now())))
      throw new NotFoundError('Client not found.');
    return {
      status: 'success',
      message: 'The client is disabled.',
      redirect_to: `/admin/oauth/clients/${params.client_id}`,
    };
  },
});

const enable = defineEndpoint({
  ...clientChange,
  method: 'POST',
  path: '/admin/oauth/clients/:client_id/enable',
  action: 'oauth.client_enable',
  ability: 'admin:update',
  summary: 'Enable a disabled client (administrators, sudo)',
  responses: { 200: Envelope() },
  async handler({ params, services }) {
    if (!(await setClientDisabled(services.db, params.client_id, false, services.clock.now())))
      throw new NotFoundError('Client not found.');
    return {
      status: 'success',
      message: 'The client is enabled.',
      redirect_to: `/admin/oauth/clients/${params.client_id}`,
    };
  },
});

const remove = defineEndpoint({
  ...clientChange,
  method: 'DELETE',
  path: '/admin/oauth/clients/:client_id',
  aliases: [{ method: 'POST', path: '/admin/oauth/clients/:client_id/delete' }],
  action: 'oauth.client_delete',
  ability: 'admin:delete',
  summary: 'Delete a client: its consents go and every token it holds stops working (administrators, sudo)',
  responses: { 200: Envelope() },
  async handler({ params, services }) {
    if (!(await deleteClient(services.db, params.client_id, services.clock.now())))
      throw new NotFoundError('Client not found.');
    return { status: 'success', message: 'The client is deleted.', redirect_to: '/admin/oauth/clients' };
  },
});

/** The admin API and pages of OAuth clients. */
export const adminClientEndpoints = [list, create, show, rotate, disable, enable, remove] as const;
