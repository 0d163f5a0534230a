import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { AuthenticationRequiredError } from '../../core/errors.ts';
import { respond } from '../../http/respond.ts';
import { requireAbility, requireCaller } from './caller.ts';
import { requireSudo } from '../sudo/guard.ts';
import { ANSWERED, type AnyEndpoint, type EndpointInput } from './endpoint.ts';
import { inputReader } from './endpoint-input.ts';

declare module './endpoint.ts' {
  interface EndpointHttp {
    request: FastifyRequest;
    reply: FastifyReply;
  }
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The declaration this route serves (for the auth OpenAPI document and log redaction). */
    endpoint?: AnyEndpoint;
  }
}

/** Who may call, checked before the input is read: 401 without a caller, 403 without the ability or sudo. */
async function checkAccess(
  endpoint: AnyEndpoint,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<void> {
  if (endpoint.auth === 'anonymous' || endpoint.auth === 'optional') return;
  const caller = endpoint.ability ? requireAbility(request, endpoint.ability) : requireCaller(request);
  if (endpoint.bearer === false && caller.via !== 'session') throw new AuthenticationRequiredError();
  if (endpoint.auth === 'sudo') await requireSudo(request, reply);
}

/** The handler's input for this request (params, query and body already decoded and checked). */
function inputOf(
  request: FastifyRequest,
  reply: FastifyReply,
  parts: Pick<EndpointInput, 'params' | 'query' | 'body'>,
): EndpointInput {
  return {
    ...parts,
    caller: request.caller,
    ip: request.ip,
    userAgent: request.headers['user-agent'] ?? null,
    services: request.server,
    http: { request, reply },
  };
}

/** Serve one declaration (and its aliases) as Fastify routes of `app`. */
export function registerEndpoint(app: FastifyInstance, endpoint: AnyEndpoint): void {
  const params = inputReader<unknown>(endpoint.params);
  const query = inputReader<unknown>(endpoint.query);
  const body = inputReader<unknown>(endpoint.body);
  const { pageProps } = endpoint;

  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    if (endpoint.rateLimit) {
      const rule = endpoint.rateLimit;
      const who =
        rule.per === 'user' && request.caller ? `user:${request.caller.user.id}` : `ip:${request.ip}`;
      await request.server.rateLimiter.consume(`endpoint:${rule.name}:${who}`, rule.max, rule.windowSeconds);
    }
    const input = inputOf(request, reply, {
      params: params.read(request.params),
      query: query.read(request.query),
      body: body.read(request.body),
    });
    const result = await endpoint.handler(input as never);
    if (result === ANSWERED) return reply;
    return respond(request, reply, {
      action: endpoint.action,
      status: result.status,
      statusCode: result.statusCode,
      message: result.message,
      user: result.user,
      data: result.data,
      redirectTo: result.redirect_to,
      errors: result.errors,
      fields: result.fields,
      render: result.render,
    });
  };

  const options: Omit<RouteOptions, 'method' | 'url' | 'handler'> = {
    config: {
      action: endpoint.action,
      page: endpoint.page,
      // A page shown again after an error reads what it needs without the (refused) input.
      pageProps: pageProps
        ? (request: FastifyRequest) =>
            pageProps(inputOf(request, undefined as never, { params: request.params, query: {}, body: {} }))
        : undefined,
      csrfExempt: endpoint.csrfExempt,
      endpoint,
    },
    // JSON answers are serialized from the declared schemas (form clients get pages or redirects).
    schema: { response: endpoint.responses },
    preHandler: (request, reply) => checkAccess(endpoint, request, reply),
  };
  for (const { method, path } of [
    { method: endpoint.method, path: endpoint.path },
    ...(endpoint.aliases ?? []),
  ])
    app.route({ method, url: path, ...options, handler });
}

/** Serve every declaration of a capability. */
export function registerEndpoints(app: FastifyInstance, endpoints: readonly AnyEndpoint[]): void {
  for (const endpoint of endpoints) registerEndpoint(app, endpoint);
}
