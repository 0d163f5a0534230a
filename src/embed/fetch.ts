import type { FastifyInstance } from 'fastify';

/**
 * What a Fetch-API server knows beside the Request. Bun's `serve` passes its server (which has
 * `requestIP`), Deno's `serve` passes `{ remoteAddr }`; anything else (Hono, Next.js) can pass
 * `{ clientAddress }`, which wins.
 */
export interface FetchContext {
  /** The client's address as the socket saw it (X-Forwarded-For is read per `trustProxy`). */
  clientAddress?: string;
  remoteAddr?: { hostname?: string };
  requestIP?: (request: Request) => { address: string } | null;
}

/**
 * With no address at all (a Fetch Request carries none), the request looks like it came from an
 * address no trust-proxy rule names, so X-Forwarded-For is never believed on its word.
 */
export const UNKNOWN_CLIENT_ADDRESS = '0.0.0.0';

/** Hop-by-hop headers: they describe the connection to the host server, not this request. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'te', 'trailer']);
const NO_BODY_STATUS = new Set([101, 204, 205, 304]);

export function clientAddressOf(request: Request, context: unknown): string | undefined {
  if (!context || typeof context !== 'object') return undefined;
  const given = context as FetchContext;
  if (typeof given.clientAddress === 'string' && given.clientAddress !== '') return given.clientAddress;
  if (typeof given.remoteAddr?.hostname === 'string') return given.remoteAddr.hostname;
  if (typeof given.requestIP === 'function') return given.requestIP(request)?.address;
  return undefined;
}

/**
 * One Fetch Request through the Fastify app, exactly as a Node request would go (Fastify's own
 * injection: routing, hooks, body parsers, error handlers, serializers), and its answer as a Fetch
 * Response. `basePath` is the mount path the host routes to Citadel: it is taken off the URL, as
 * `app.use('/auth', handler)` does for the Node handler; the resource API's own path
 * (`apiBaseUrl`, `/api`) is served as it is, for a host that routes it beside the mount; any other
 * URL outside the mount is Citadel's 404. `prefix` is the Fastify prefix Citadel's routes sit under
 * (an encapsulated instance's), put in front of the path.
 */
export async function injectFetch(
  app: FastifyInstance,
  request: Request,
  options: { basePath: string; remoteAddress: string; apiBaseUrl?: string; prefix?: string },
): Promise<Response> {
  const url = new URL(request.url);
  let path = url.pathname;
  const api = options.apiBaseUrl;
  if (options.basePath !== '') {
    if (path === options.basePath || path.startsWith(`${options.basePath}/`))
      path = path.slice(options.basePath.length) || '/';
    // The host may serve the resource API beside the mount (`/api` beside `/auth`): its own path.
    else if (api && (path === api || path.startsWith(`${api}/`))) path = url.pathname;
    // Not mounted here: no route of Citadel can answer it, its not-found handler does.
    else path = `/.citadel-not-mounted${path}`;
  }
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    if (!HOP_BY_HOP.has(name) && name !== 'content-length') headers[name] = value;
  });
  headers.host ??= url.host;
  const method = request.method.toUpperCase();
  const body =
    method === 'GET' || method === 'HEAD' || request.body === null
      ? undefined
      : Buffer.from(await request.arrayBuffer());
  const answer = await app.inject({
    method: method as 'GET',
    url: (options.prefix ?? '') + path + url.search,
    headers,
    ...(body === undefined ? {} : { payload: body }),
    remoteAddress: options.remoteAddress,
  });

  const responseHeaders = new Headers();
  for (const [name, value] of Object.entries(answer.headers)) {
    if (value === undefined || HOP_BY_HOP.has(name)) continue;
    // Each Set-Cookie stays its own header (getSetCookie() sees them all).
    if (Array.isArray(value)) for (const one of value) responseHeaders.append(name, String(one));
    else responseHeaders.set(name, String(value));
  }
  const empty = method === 'HEAD' || NO_BODY_STATUS.has(answer.statusCode);
  return new Response(empty ? null : new Uint8Array(answer.rawPayload), {
    status: answer.statusCode,
    statusText: answer.statusMessage,
    headers: responseHeaders,
  });
}
