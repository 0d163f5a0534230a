/**
 * `citadel/client`: a typed client of a Citadel server for browsers and Node 20+
 * (docs/client.md). `createClient<typeof config>({ baseUrl })` types `client.auth.*` from the
 * configuration's endpoint declarations and `client.api.<version>.<resource>` from its resources;
 * at run time it is `fetch` and nothing else: it imports no server code (types only).
 */
import type { CitadelOptions } from '../config/types.ts';
import type { ApiBuilder } from '../api/resource/define.ts';
import type { ResourceConfig } from '../api/resource/types.ts';
import type { DefaultPlugins } from '../auth/index.ts';
import type { CORE_ENDPOINTS } from '../auth/core/security-event-list.ts';
import type { AuthClient } from './auth-types.ts';
import type { CoreErrorCode, ProblemType } from '../auth/core/error-codes.ts';
import type { ApiClient } from './api-types.ts';
import { clientNames, type ClientRoute } from './naming.ts';
import type { ClientError, ClientResult, ProblemDetails, RequestOptions } from './result.ts';
import { openLive, type LiveOptions } from './live.ts';

export type { ClientError, ClientResult, ProblemDetails, RequestOptions } from './result.ts';
export type { LiveEvent, LiveOptions, LiveStream } from './live.ts';
export type { AuthClient, AuthData, AuthInput, AuthMethod, UntypedAuthClient } from './auth-types.ts';
export type {
  ApiClient,
  ChangeInput,
  CreateInput,
  DerivePath,
  FieldName,
  Filter,
  FilterOperators,
  JsonValue,
  ListQuery,
  ListResult,
  LiveQuery,
  Pagination,
  ReadQuery,
  ResourceClient,
  ResourceId,
  ResourceLive,
  ResourceRecord,
  Selected,
  SortField,
  TenantOf,
  TenantScoped,
} from './api-types.ts';

/** Options of `createClient()`. */
export interface ClientOptions {
  /** Where Citadel is served, mount path included (`https://example.com`, `https://example.com/auth`). */
  baseUrl: string;
  /** A personal access token or JWT, sent as `Authorization: Bearer` (Node, other services). */
  token?: string;
  /** Headers sent with every call (server-side rendering: the incoming request's `cookie`). */
  headers?: Record<string, string>;
  /** The `fetch` to use (default: the platform's). */
  fetch?: typeof fetch;
  /**
   * The resource API's base path. Default: the one `GET /endpoints` names (read once, with the
   * auth routes); give it to save that request when the client only calls the resource API.
   */
  apiBaseUrl?: string;
}

type PluginsOf<C> = C extends { plugins?: infer P }
  ? [NonNullable<P>] extends [never]
    ? undefined
    : P
  : undefined;
/** The configuration's plugins, or the built-ins (what `defaultPlugins()` returns) when it has none. */
type PluginList<C> =
  // `DefaultPlugins<{}>`, not `ReturnType<typeof defaultPlugins>`: the return type of that generic
  // function is `any` here, which typed `client.auth` as empty.
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- no overrides: every built-in
  PluginsOf<C> extends readonly (infer Plugin)[] ? Plugin : DefaultPlugins<{}>[number];
/** The plugins' endpoints and the core's (the security events list), whatever the plugins. */
type EndpointsOf<C> =
  | (PluginList<C> extends infer Plugin
      ? Plugin extends { endpoints?: readonly (infer E)[] }
        ? E
        : never
      : never)
  | (typeof CORE_ENDPOINTS)[number];
/** The plugins' after hooks, as declared (`hooks.after`). */
type AfterHooksOf<C> =
  PluginList<C> extends infer Plugin
    ? Plugin extends { hooks: { after: readonly (infer H)[] } }
      ? H
      : never
    : never;
type ApiOf<C> = C extends { api?: infer A } ? NonNullable<A> : never;
type EndpointActionsOf<C> =
  EndpointsOf<C> extends infer E ? (E extends { action: infer A extends string } ? A : never) : never;
type ErrorCodesOf<C> =
  PluginList<C> extends infer Plugin
    ? Plugin extends { errorCodes: readonly (infer K extends string)[] }
      ? K
      : never
    : never;

/**
 * Every `action` of an auth answer and `type` of a problem a server of this configuration sends, as
 * a string-literal union: its endpoints' actions, the core's codes (`sudo.required`,
 * `impersonation.forbidden`, …) and its plugins' `errorCodes` (`organizations.last_owner`, …).
 */
export type CitadelAction<Config = CitadelOptions> =
  EndpointActionsOf<Config> | ErrorCodesOf<Config> | CoreErrorCode | ProblemType;

/** The typed client of a configuration (`typeof config`). */
export interface CitadelClient<Config = CitadelOptions> {
  /** One method per auth endpoint of the plugins and the core (docs/client.md, "Method names"). */
  auth: AuthClient<EndpointsOf<Config>, AfterHooksOf<Config>>;
  /** Per published version, its resources: `client.api.v1.posts.list()`. */
  api: [ApiOf<Config>] extends [never]
    ? Record<string, never>
    : ApiOf<Config> extends ApiBuilder<infer R, infer V>
      ? R[number] extends infer Resource extends ResourceConfig
        ? ApiClient<Resource, V>
        : never
      : Record<string, never>;
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function errorOf(response: Response, body: unknown): ClientError {
  const status = response.status;
  if (isObject(body) && typeof body.title === 'string' && typeof body.status === 'number' && 'type' in body) {
    const problem = body as unknown as ProblemDetails;
    const errors = problem.invalid_params?.length
      ? Object.fromEntries(problem.invalid_params.map((p) => [p.name, p.reason]))
      : undefined;
    return { status, message: problem.detail || problem.title, problem, ...(errors ? { errors } : {}), body };
  }
  if (isObject(body) && typeof body.action === 'string') {
    return {
      status,
      message: typeof body.message === 'string' ? body.message : response.statusText || `HTTP ${status}`,
      action: body.action,
      ...(isObject(body.errors) ? { errors: body.errors as Record<string, string> } : {}),
      body,
    };
  }
  return { status, message: response.statusText || `HTTP ${status}`, ...(body === null ? {} : { body }) };
}

function queryString(query: Json | undefined): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value === undefined) continue;
    if (Array.isArray(value)) params.append(key, value.join(','));
    else if (isObject(value)) params.append(key, JSON.stringify(value));
    else params.append(key, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

/**
 * A path parameter that cannot be sent: empty (or missing), `.` or `..`. A URL resolver (fetch,
 * a proxy) would drop such a segment and reach another endpoint, so the call resolves to this
 * error without a request (`status: 0`: no HTTP answer; `errors` names the parameter).
 */
function unsafeSegment(name: string, value: unknown): ClientError | null {
  const text = value === undefined || value === null ? '' : String(value);
  if (text !== '' && text !== '.' && text !== '..') return null;
  return {
    status: 0,
    message: `The path parameter "${name}" is empty, "." or "..": the request was not sent.`,
    errors: { [name]: 'must not be empty, "." or ".."' },
  };
}

interface Call {
  method: string;
  path: string;
  query?: Json;
  body?: unknown;
  options?: RequestOptions;
}

/**
 * A client of the Citadel server at `baseUrl`, typed from the server's configuration:
 * `createClient<typeof config>({ baseUrl })`. Every call resolves to `{ data, error }` (an HTTP
 * error is a result, not an exception); a network failure rejects.
 */
export function createClient<Config = CitadelOptions>(options: ClientOptions): CitadelClient<Config> {
  const base = options.baseUrl.replace(/\/+$/, '');
  const doFetch =
    options.fetch ?? ((input: Parameters<typeof fetch>[0], init?: RequestInit) => fetch(input, init));

  async function send({
    method,
    path,
    query,
    body,
    options: call,
  }: Call): Promise<{ response: Response; json: unknown }> {
    const headers: Record<string, string> = {
      accept: 'application/json',
      // A JSON client (the envelope, never a page or a redirect) that needs no CSRF token.
      'x-spa': 'true',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      ...options.headers,
      ...call?.headers,
    };
    const response = await doFetch(`${base}${path}${queryString(query)}`, {
      method,
      headers,
      credentials: 'include',
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      ...(call?.signal ? { signal: call.signal } : {}),
    });
    const text = await response.text();
    let json: unknown = null;
    if (text && /json/.test(response.headers.get('content-type') ?? '')) {
      try {
        json = JSON.parse(text);
      } catch {
        json = text;
      }
    } else if (text) json = text;
    return { response, json };
  }

  async function call(request: Call): Promise<ClientResult<unknown>> {
    const { response, json } = await send(request);
    return response.ok ? { data: json, error: null } : { data: null, error: errorOf(response, json) };
  }

  // The route list, read once per client (not kept when it fails, so a later call tries again).
  let routes: Promise<ClientResult<{ names: Map<string, ClientRoute>; api: string | null }>> | undefined;
  function loadRoutes() {
    routes ??= call({ method: 'GET', path: '/endpoints' }).then(
      (result) => {
        if (result.error) {
          routes = undefined;
          return result;
        }
        const data = (result.data as { data: { endpoints: ClientRoute[]; api: string | null } }).data;
        return { data: { names: clientNames(data.endpoints), api: data.api }, error: null };
      },
      (failure: unknown) => {
        // A network failure: this call rejects, the next one asks again.
        routes = undefined;
        throw failure;
      },
    );
    return routes;
  }

  async function callAuth(
    name: string,
    input: unknown,
    callOptions: (RequestOptions & { query?: Json }) | undefined,
  ) {
    const loaded = await loadRoutes();
    if (loaded.error) return loaded;
    const route = loaded.data.names.get(name);
    if (!route) throw new TypeError(`citadel/client: the server has no auth endpoint named "${name}"`);
    const rest: Json = { ...(isObject(input) ? input : {}) };
    let refused: ClientError | null = null;
    const path = route.path.replace(/:([A-Za-z0-9_]+)/g, (_, param: string) => {
      const value = rest[param];
      delete rest[param];
      refused ??= unsafeSegment(param, value);
      return value === undefined ? '' : encodeURIComponent(String(value));
    });
    if (refused) return { data: null, error: refused };
    const { query, ...requestOptions } = callOptions ?? {};
    const bodiless = route.method === 'GET' || route.method === 'DELETE';
    return call({
      method: route.method,
      path: path.replace(/\/+$/, '') || '/',
      query: bodiless ? rest : query,
      body: bodiless || input === undefined ? undefined : rest,
      options: requestOptions,
    });
  }

  function authProxy(chain: string[]): unknown {
    const target = (input?: unknown, callOptions?: RequestOptions & { query?: Json }) =>
      callAuth(chain.join('.'), input, callOptions);
    return new Proxy(target, {
      get(_, key) {
        // Not a thenable: `await client.auth` must not call an endpoint named `then`.
        if (typeof key !== 'string' || key === 'then') return undefined;
        return authProxy([...chain, key]);
      },
    });
  }

  async function apiPath(version: string, resource: string, id?: unknown): Promise<ClientResult<string>> {
    const refused =
      unsafeSegment('version', version) ??
      unsafeSegment('resource', resource) ??
      (id === undefined ? null : unsafeSegment('id', id));
    if (refused) return { data: null, error: refused };
    let prefix = options.apiBaseUrl;
    if (prefix === undefined) {
      const loaded = await loadRoutes();
      if (loaded.error) return loaded;
      if (loaded.data.api === null)
        return { data: null, error: { status: 404, message: 'This server has no resource API.' } };
      prefix = loaded.data.api;
    }
    const item = id === undefined ? '' : `/${encodeURIComponent(String(id))}`;
    return {
      data: `${prefix.replace(/\/+$/, '')}/${encodeURIComponent(version)}/${encodeURIComponent(resource)}${item}`,
      error: null,
    };
  }

  /** `fields`, `sort` and `derive` as comma lists, `filter` as JSON. */
  function readQuery(query: unknown): Json | undefined {
    return isObject(query) ? query : undefined;
  }

  async function resourceCall(
    version: string,
    resource: string,
    method: string,
    id: unknown,
    payload: { query?: unknown; body?: unknown },
    callOptions: RequestOptions | undefined,
  ) {
    const path = await apiPath(version, resource, id);
    if (path.error) return path;
    const result = await call({
      method,
      path: path.data,
      query: readQuery(payload.query),
      body: payload.body,
      options: callOptions,
    });
    if (result.error) return result;
    return { data: (result.data as { data: unknown }).data, error: null };
  }

  function resourceClient(version: string, resource: string) {
    return {
      async list(query?: unknown, callOptions?: RequestOptions) {
        const path = await apiPath(version, resource);
        if (path.error) return { data: null, pagination: null, error: path.error };
        const result = await call({
          method: 'GET',
          path: path.data,
          query: readQuery(query),
          options: callOptions,
        });
        if (result.error) return { data: null, pagination: null, error: result.error };
        const body = result.data as { data: unknown[]; pagination: unknown };
        return { data: body.data, pagination: body.pagination, error: null };
      },
      get: (id: unknown, query?: unknown, callOptions?: RequestOptions) =>
        resourceCall(version, resource, 'GET', id, { query }, callOptions),
      create: (body: unknown, callOptions?: RequestOptions) =>
        resourceCall(version, resource, 'POST', undefined, { body }, callOptions),
      update: (id: unknown, body: unknown, callOptions?: RequestOptions) =>
        resourceCall(version, resource, 'PATCH', id, { body }, callOptions),
      replace: (id: unknown, body: unknown, callOptions?: RequestOptions) =>
        resourceCall(version, resource, 'PUT', id, { body }, callOptions),
      delete: (id: unknown, callOptions?: RequestOptions) =>
        resourceCall(version, resource, 'DELETE', id, {}, callOptions),
      live: (query?: unknown, liveOptions?: LiveOptions) =>
        openLive(
          {
            url: async () => {
              const path = await apiPath(version, resource);
              return path.error
                ? path
                : { data: `${base}${path.data}/live${queryString(readQuery(query))}`, error: null };
            },
            fetch: doFetch,
            headers: {
              ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
              ...options.headers,
            },
            errorOf: async (response) => {
              const text = await response.text().catch(() => '');
              let json: unknown = text || null;
              try {
                json = JSON.parse(text);
              } catch {
                // not JSON: the text itself
              }
              return errorOf(response, json);
            },
          },
          liveOptions,
        ),
    };
  }

  const named = <T>(make: (name: string) => T) =>
    new Proxy({} as Record<string, T>, {
      get(cache, key) {
        if (typeof key !== 'string' || key === 'then') return undefined;
        return (cache[key] ??= make(key));
      },
    });

  return {
    auth: authProxy([]),
    api: named((version) => named((resource) => resourceClient(version, resource))),
  } as unknown as CitadelClient<Config>;
}
