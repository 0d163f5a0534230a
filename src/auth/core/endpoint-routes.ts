import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { AuthenticationRequiredError } from '../../core/errors.ts';
import { respond } from '../../http/respond.ts';
import { requireAbility, requireCaller } from './caller.ts';
import { requireSudo } from './sudo/guard.ts';
import {
  ANSWERED,
  type AnyEndpoint,
  type EndpointInput,
  type EndpointRateLimit,
  type RateLimitInput,
} from './endpoint.ts';
import { inputReader, validOrThrow, type DecodedInput } from './endpoint-input.ts';

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

/** Hit each rule's counter (429 past its limit), keyed as the rule says. */
async function countRequest(
  limits: readonly EndpointRateLimit[],
  request: FastifyRequest,
  decoded: Record<'params' | 'query' | 'body', DecodedInput<unknown>>,
): Promise<void> {
  const services = request.server;
  const record = (part: DecodedInput<unknown>) => (part.value ?? {}) as Record<string, unknown>;
  const input: RateLimitInput = {
    params: record(decoded.params),
    query: record(decoded.query),
    body: record(decoded.body),
    errors: { ...decoded.params.errors, ...decoded.query.errors, ...decoded.body.errors },
    ip: request.ip,
    caller: request.caller,
  };
  for (const rule of limits) {
    const per = rule.per ?? 'ip';
    const who =
      per === 'ip'
        ? request.ip
        : per === 'user'
          ? request.caller
            ? String(request.caller.user.id)
            : request.ip
          : per(input);
    if (who === undefined) continue;
    const max = typeof rule.max === 'function' ? rule.max(services) : rule.max;
    const window =
      typeof rule.windowSeconds === 'function' ? rule.windowSeconds(services) : rule.windowSeconds;
    await services.rateLimiter.consume(`${rule.name}:${who}`, max, window);
  }
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

  const limits = endpoint.rateLimit === undefined ? [] : [endpoint.rateLimit].flat();

  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const decoded = {
      params: params.decode(request.params),
      query: query.decode(request.query),
      body: body.decode(
        request.body,
        endpoint.refine && ((value) => endpoint.refine!(value as never, request.server)),
      ),
    };
    if (limits.length > 0) await countRequest(limits, request, decoded);
    const input = inputOf(request, reply, {
      params: validOrThrow(decoded.params),
      query: validOrThrow(decoded.query),
      body: validOrThrow(decoded.body),
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
      secrets: endpoint.secrets,
      jsonOnly: endpoint.jsonOnly,
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
