import { Type, type TSchema } from '@sinclair/typebox';
import { finishOpenApiDocument, type OpenApiVersion } from '../../core/openapi.ts';
import { pluginRuleMatches, type AnyEndpoint, type PluginRateLimit } from './endpoint.ts';

/**
 * The OpenAPI document of the auth endpoints, built from their
 * declarations only: every endpoint of the built-ins and the plugins, with its parameters, body
 * (JSON and HTML form), answers, who may call it and its rate limit. 3.0.3 by default, 3.1.0 on
 * request, like the resource API's documents.
 */

type Json = Record<string, unknown>;

/** A TypeBox schema as plain JSON Schema: symbols and Citadel's own `x-` hints left out. */
function plainSchema(schema: TSchema): Json {
  return JSON.parse(
    JSON.stringify(schema, (key, value: unknown) =>
      key === 'x-raw' || key === 'x-message' || key === 'x-pattern-message' ? undefined : value,
    ),
  ) as Json;
}

const ERROR_ENVELOPE = Type.Object({
  action: Type.String(),
  status: Type.Literal('error'),
  statusCode: Type.Integer(),
  message: Type.String(),
  redirect_to: Type.Optional(Type.String()),
  errors: Type.Optional(Type.Record(Type.String(), Type.String())),
  data: Type.Optional(Type.Object({}, { additionalProperties: true })),
});

const ERRORS: Record<string, string> = {
  '400': 'The request could not be read (a body that is not valid JSON, or not what the endpoint reads).',
  '401': 'No caller, wrong credentials, or an invalid bearer token.',
  '403':
    'Refused: a form post without a valid `_csrf`, a request from another site (`Sec-Fetch-Site: cross-site`), ' +
    'a missing ability or role, or sudo needed (`action` is `sudo.required`).',
  '404': 'Not found (an unknown id, token or link).',
  '409': 'The change conflicts with the current state.',
  '410': 'Gone: the link or step has expired.',
  '413': 'The body is too large.',
  '415': 'The body is not of a type this endpoint reads.',
  '422': 'A field is not valid (or a query or body key is a reserved name): `errors.<field>` says why.',
  '429': 'Too many requests: try again after `Retry-After` seconds.',
  '503': 'A service Citadel needs is unavailable: try again later.',
};

function errorResponse(status: string): Json {
  return {
    description: ERRORS[status] ?? 'See the envelope.',
    content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
  };
}

/** `/tokens/:id` → `/tokens/{id}`. */
function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

function parametersOf(endpoint: AnyEndpoint): Json[] {
  const parameters: Json[] = [];
  const add = (schema: TSchema | undefined, where: 'path' | 'query') => {
    if (!schema) return;
    const plain = plainSchema(schema);
    const required = new Set((plain.required as string[] | undefined) ?? []);
    for (const [name, property] of Object.entries((plain.properties ?? {}) as Record<string, Json>)) {
      const secret = endpoint.secrets?.includes(name);
      parameters.push({
        name,
        in: where,
        required: where === 'path' || required.has(name),
        schema: property,
        ...(secret ? { description: 'A secret: never logged.' } : {}),
      });
    }
  };
  add(endpoint.params, 'path');
  add(endpoint.query, 'query');
  return parameters;
}

/** What an `orgRole` declaration requires, in words. */
function orgRoleNote(orgRole: string): string {
  const who =
    orgRole === 'owner'
      ? 'an owner'
      : orgRole === 'admin'
        ? 'an owner or an admin'
        : orgRole === 'member'
          ? 'a member'
          : `a member whose role holds \`${orgRole}\``;
  return `The caller must be ${who} of the organization \`id\` (404 for a non-member, 403 for another role).`;
}

function securityOf(endpoint: AnyEndpoint): Json[] {
  const both = [{ session: [] }, { bearer: [] }];
  if (endpoint.auth === 'anonymous') return [{}];
  if (endpoint.auth === 'optional') return [{}, ...both];
  return endpoint.bearer === false ? [{ session: [] }] : both;
}

/**
 * Every error status the adapter itself can answer this endpoint with, from its declaration, and
 * the handler's own (`failures`).
 */
export function errorStatusesOf(
  endpoint: AnyEndpoint,
  pluginLimits: readonly PluginRateLimit[] = [],
): Set<string> {
  // An invalid bearer token is 401 on every route, whoever may call it; every endpoint refuses
  // reserved key names in its query (422), whatever it declares.
  const failures = new Set<string>(['401', '422']);
  // Every unsafe method: its body is parsed (400 unreadable JSON, 413 over the size limit, 415 a
  // type no parser reads) and a cross-site request is refused (403), as is a form post without
  // `_csrf` (a POST that is not csrfExempt).
  if (endpoint.method !== 'GET') failures.add('400').add('403').add('413').add('415');
  // A JSON-only endpoint refuses a bodyless request from a form client too.
  if (endpoint.jsonOnly) failures.add('415');
  if (endpoint.auth === 'sudo' || endpoint.auth === 'admin' || endpoint.ability || endpoint.impersonation)
    failures.add('403');
  // A non-member is told the organization does not exist; a member short of the role, 403.
  if (endpoint.orgRole !== undefined) failures.add('403').add('404');
  if (endpoint.rateLimit || matchingPluginLimits(endpoint, pluginLimits).length > 0) failures.add('429');
  for (const status of endpoint.failures ?? []) failures.add(String(status));
  return failures;
}

/** The plugins' `rateLimits` rules that count this endpoint's requests. */
function matchingPluginLimits(
  endpoint: AnyEndpoint,
  pluginLimits: readonly PluginRateLimit[],
): PluginRateLimit[] {
  return pluginLimits.filter((rule) => pluginRuleMatches(rule, [endpoint.method], endpoint.path));
}

function operationOf(
  endpoint: AnyEndpoint,
  operationId: string,
  tag: string,
  pluginLimits: readonly PluginRateLimit[],
): Json {
  const responses: Json = {};
  for (const [status, schema] of Object.entries(endpoint.responses)) {
    responses[status] = {
      description: status.startsWith('2') ? 'Success (the auth envelope).' : 'See the envelope.',
      content: { 'application/json': { schema: plainSchema(schema as TSchema) } },
    };
  }
  for (const status of [...errorStatusesOf(endpoint, pluginLimits)].sort())
    responses[status] ??= errorResponse(status);

  const limits = [
    ...(endpoint.rateLimit === undefined ? [] : [endpoint.rateLimit].flat()),
    ...matchingPluginLimits(endpoint, pluginLimits),
  ];
  const notes = [
    endpoint.description,
    endpoint.jsonOnly ? 'Reads JSON only (`Content-Type: application/json`).' : undefined,
    endpoint.auth === 'sudo' ? 'Needs sudo (a recent step-up) for a browser session.' : undefined,
    endpoint.auth === 'admin'
      ? `Administrators only (403 \`admin.forbidden\` otherwise, and while acting as another user)${
          endpoint.method === 'GET' ? '' : '; needs sudo (a recent step-up) for a browser session'
        }.`
      : undefined,
    endpoint.orgRole !== undefined ? orgRoleNote(endpoint.orgRole) : undefined,
    endpoint.ability ? `A bearer token needs the ability \`${endpoint.ability}\`.` : undefined,
    endpoint.impersonation === 'forbidden'
      ? 'Refused (403 `impersonation.forbidden`) while an administrator acts as the user.'
      : undefined,
    limits.length > 0 ? `Rate limited (${limits.map((rule) => rule.name).join(', ')}).` : undefined,
  ].filter(Boolean);
  const operation: Json = {
    operationId,
    tags: [tag],
    summary: endpoint.summary ?? endpoint.action,
    ...(notes.length > 0 ? { description: notes.join(' ') } : {}),
    'x-action': endpoint.action,
    ...(endpoint.auth === 'admin' ? { 'x-role': 'admin' } : {}),
    ...(endpoint.orgRole !== undefined ? { 'x-org-role': endpoint.orgRole } : {}),
    security: securityOf(endpoint),
    parameters: parametersOf(endpoint),
    responses,
  };
  if (endpoint.body) {
    const schema = plainSchema(endpoint.body);
    operation.requestBody = {
      required: true,
      content: endpoint.jsonOnly
        ? { 'application/json': { schema } }
        : { 'application/json': { schema }, 'application/x-www-form-urlencoded': { schema } },
    };
  }
  return operation;
}

/** `tokens.index` → `tokensIndex`; a second operation with the same action gets its method. */
function operationIdOf(endpoint: AnyEndpoint, taken: Set<string>): string {
  const base = endpoint.action.replace(/[._]([a-z0-9])/g, (_match, letter: string) => letter.toUpperCase());
  const id = taken.has(base)
    ? `${base}${endpoint.method.charAt(0)}${endpoint.method.slice(1).toLowerCase()}`
    : base;
  taken.add(id);
  return id;
}

export interface AuthDocumentOptions {
  title: string;
  /** The server's URL (the mount path, relative to where the document is loaded from). */
  serverUrl: string;
  /** The session cookie's name. */
  cookieName: string;
  openapi?: OpenApiVersion;
  /** The plugins' `rateLimits` rules: an endpoint one of them counts may answer 429. */
  rateLimits?: readonly PluginRateLimit[];
}

/** The endpoints of one plugin: they share a tag (a section of the interactive page). */
export interface EndpointGroup {
  name: string;
  endpoints: readonly AnyEndpoint[];
}

export function buildAuthOpenApiDocument(
  groups: readonly EndpointGroup[],
  options: AuthDocumentOptions,
): Json {
  const paths: Record<string, Json> = {};
  const taken = new Set<string>();
  for (const { name, endpoints } of groups) {
    for (const endpoint of endpoints) {
      const path = openApiPath(endpoint.path);
      paths[path] ??= {};
      paths[path]![endpoint.method.toLowerCase()] = operationOf(
        endpoint,
        operationIdOf(endpoint, taken),
        name,
        options.rateLimits ?? [],
      );
    }
  }
  const document: Json = {
    openapi: '3.1.0',
    info: {
      title: `${options.title}: authentication`,
      version: '1',
      description:
        'Every answer is the auth envelope `{ action, status, statusCode, message?, redirect_to?, user?, data?, errors? }`. ' +
        'Browsers send the session cookie (and `_csrf` with HTML form posts); other clients send `Authorization: Bearer <token>`.',
    },
    servers: [{ url: options.serverUrl }],
    paths,
    components: {
      schemas: { ErrorEnvelope: plainSchema(ERROR_ENVELOPE) },
      securitySchemes: {
        session: { type: 'apiKey', in: 'cookie', name: options.cookieName },
        bearer: { type: 'http', scheme: 'bearer', description: 'A personal access token.' },
      },
    },
  };
  return finishOpenApiDocument(document, options.openapi);
}
