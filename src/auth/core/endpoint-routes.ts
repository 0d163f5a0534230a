import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import {
  AuthenticationRequiredError,
  ConfigError,
  ForbiddenError,
  ImpersonationForbiddenError,
} from '../../core/errors.ts';
import { refillableInput, respond } from '../../http/response/respond.ts';
import { clientKind } from '../../http/request/negotiation.ts';
import { requestLanguage } from '../../http/i18n/request-language.ts';
import { allowedMethods } from '../../http/response/allow.ts';
import { mountedPath } from '../../http/request/base-path.ts';
import { commitSession, cookieOptions } from '../../http/sessions/plugin.ts';
import { requireAbility, requireCaller } from './caller.ts';
import { requireSudo } from './sudo/guard.ts';
import { isAdmin } from './roles.ts';
import type { AnyEndpoint, EndpointInput, EndpointRateLimit, RateLimitInput } from './endpoint.ts';
import { inputReader, validFields, validOrThrow, type DecodedInput } from './endpoint-input.ts';
import type { CitadelServices } from './services.ts';
import type { RequestContext } from './request-context.ts';
import { authMessages } from './messages/index.ts';
import { formTargetSource } from '../../http/security/security-headers.ts';
import { hookOf } from '../../http/request/hooks.ts';

/*
 * The HTTP adapter of the auth side: the only place (with the route registration files) where a
 * Fastify request becomes the plain `RequestContext` domain code takes, and where what a request
 * changed (its session with the session's events, its cookies) is committed before the answer.
 */

declare module 'fastify' {
  interface FastifyInstance {
    /** Citadel's services, one plain object built by the composition root (`src/app/mount.ts`). */
    citadel: CitadelServices;
  }
  interface FastifyContextConfig {
    /** The declaration this route serves (for the auth OpenAPI document and log redaction). */
    endpoint?: AnyEndpoint;
  }
}

/** The same-origin Referer's path, for returning a form POST to its page. */
function refererPath(request: FastifyRequest, appUrl: string): string | null {
  const referer = request.headers.referer;
  if (!referer) return null;
  try {
    const url = new URL(referer);
    if (url.origin !== new URL(appUrl).origin) return null;
    return url.pathname + url.search;
  } catch {
    return null;
  }
}

const kRequest = Symbol('request');

/**
 * This request as domain code sees it: plain data, its session and caller. A class whose fields
 * are read from the request when asked, so the many requests that never look (an anonymous
 * read) pay for one small object, not for a dozen closures and the client address.
 */
class FastifyRequestContext implements RequestContext {
  readonly cookieWrites: RequestContext['cookieWrites'] = [];
  signInFactsRead: RequestContext['signInFactsRead'] = null;
  // A declared endpoint's decoded input (`inputOf`): the handler's input is this same object, so a
  // request makes one context, never a second object whose prototype is a per-request one (which
  // V8 turns into a dictionary-mode prototype: a tenth of GET /me's time).
  params: unknown = undefined;
  query: unknown = undefined;
  body: unknown = undefined;
  readonly [kRequest]: FastifyRequest;

  constructor(request: FastifyRequest) {
    this[kRequest] = request;
  }
  allowFormTarget(uri: string): void {
    const source = formTargetSource(uri);
    if (source !== undefined) (this[kRequest].formTargets ??= []).push(source);
  }
  get services(): CitadelServices {
    return this[kRequest].server.citadel;
  }
  get ip(): string {
    return this[kRequest].ip;
  }
  get userAgent(): string | null {
    const ua = this[kRequest].headers['user-agent'];
    return typeof ua === 'string' ? ua : null;
  }
  get cookies(): RequestContext['cookies'] {
    return this[kRequest].cookies;
  }
  get authorization(): string | undefined {
    return this[kRequest].headers.authorization;
  }
  get client(): RequestContext['client'] {
    return clientKind(this[kRequest]);
  }
  get method(): string {
    return this[kRequest].method;
  }
  get path(): string {
    const path = this[kRequest].url.split('?')[0]!;
    return mountedPath(this[kRequest], path) ?? path;
  }
  get returnPath(): string | null {
    const request = this[kRequest];
    const from = request.method === 'GET' ? request.url : refererPath(request, this.services.config.appUrl);
    return from === null ? null : mountedPath(request, from);
  }
  get refillableInput(): Record<string, string> {
    return refillableInput(this[kRequest]);
  }
  get session(): RequestContext['session'] {
    return this[kRequest].session;
  }
  get caller(): RequestContext['caller'] {
    return this[kRequest].caller;
  }
  set caller(caller) {
    this[kRequest].caller = caller;
  }
  get language(): RequestContext['language'] {
    return requestLanguage(this[kRequest]);
  }

  get log(): RequestContext['log'] {
    return this[kRequest].log;
  }
}

/**
 * Where a request keeps its context: a property declared on Fastify's request class
 * (`decorateRequest` in the auth core), not a WeakMap keyed by request: a WeakMap entry per
 * request (garbage collection walks each one) was about a third of what the global hooks cost an
 * anonymous GET over a bare Fastify route.
 */
export const kRequestContext = Symbol('citadel.requestContext');

type WithContext = FastifyRequest & { [kRequestContext]?: RequestContext | null };

/** This request as domain code sees it (one per request). */
export function contextOf(request: FastifyRequest): RequestContext {
  return ((request as WithContext)[kRequestContext] ??= new FastifyRequestContext(request));
}

/**
 * Commit what this request changed, before its answer is sent: the session with the rows that go
 * with it (a sign-in's event: one transaction, or on PostgreSQL one statement), then the cookies
 * domain code asked for, which go out only once that is stored. A failed commit is the answer
 * (503 outage, 401 for a user deleted meanwhile), without those cookies.
 */
export function commitRequest(
  request: FastifyRequest,
  reply: FastifyReply,
  context: RequestContext,
): void | Promise<void> {
  const committed = commitSession(request, reply);
  if (committed) return committed.then(() => writeCookies(reply, context));
  writeCookies(reply, context);
}

/** The cookies domain code asked for, on the answer. */
function writeCookies(reply: FastifyReply, context: RequestContext): void {
  const { secureCookies } = context.services.config;
  for (const { name, value, maxAge } of context.cookieWrites.splice(0)) {
    if (value === null) reply.clearCookie(name, cookieOptions(secureCookies));
    else reply.setCookie(name, value, cookieOptions(secureCookies, maxAge));
  }
}

/**
 * Who may call, checked before the input is read: 401 without a caller, 403 without the ability,
 * the admin role or sudo.
 */
function checkAccess(endpoint: AnyEndpoint, request: FastifyRequest): void | Promise<void> {
  if (endpoint.auth === 'anonymous' || endpoint.auth === 'optional') {
    // An endpoint open to anyone (an emailed link's confirmation) still refuses a session acting as
    // the user when it is marked so.
    const caller = endpoint.impersonation === 'forbidden' ? request.caller : null;
    if (caller?.via === 'session' && caller.impersonator) throw new ImpersonationForbiddenError();
    return;
  }
  const context = contextOf(request);
  const caller = endpoint.ability ? requireAbility(context, endpoint.ability) : requireCaller(context);
  if (endpoint.bearer === false && caller.via !== 'session') throw new AuthenticationRequiredError();
  if (endpoint.impersonation === 'forbidden' && caller.via === 'session' && caller.impersonator)
    throw new ImpersonationForbiddenError();
  if (endpoint.auth === 'admin') {
    if (!isAdmin(caller.user))
      throw new ForbiddenError(authMessages.text('access.adminsOnly'), { action: 'admin.forbidden' });
    if (caller.via === 'session' && caller.impersonator)
      throw new ForbiddenError(authMessages.text('access.notWhileImpersonating'), {
        action: 'admin.forbidden',
      });
    // Reading is the role alone; every change also needs sudo.
    if (endpoint.method !== 'GET')
      return requireSudo(context, endpoint.sudoReturn?.(request.params as Record<string, string>));
  }
  // Without a promise for every other endpoint (GET /me, most of a signed-in user's requests).
  if (endpoint.auth === 'sudo') return requireSudo(context);
}

/**
 * An `orgRole` declaration: the caller's membership of the organization `:id` names, checked by
 * the plugin that brings organizations (404 for a non-member, 403 short of the role).
 */
async function membershipFor(endpoint: AnyEndpoint, request: FastifyRequest, params: unknown) {
  const { tenancy, db } = request.server.citadel;
  if (!tenancy) throw new ConfigError(`${endpoint.path}: orgRole needs the organizations plugin`);
  const id = (params as { id?: unknown } | undefined)?.id;
  return tenancy.authorize(db, request.caller!.user.id, typeof id === 'string' ? id : '', endpoint.orgRole!);
}

/** Hit each rule's counter (429 past its limit), keyed as the rule says. */
async function countRequest(
  limits: readonly EndpointRateLimit[],
  request: FastifyRequest,
  decoded: Record<'params' | 'query' | 'body', DecodedInput<unknown>>,
): Promise<void> {
  const record = (part: DecodedInput<unknown>) => (part.value ?? {}) as Record<string, unknown>;
  const input: RateLimitInput = {
    params: record(decoded.params),
    query: record(decoded.query),
    body: record(decoded.body),
    errors: { ...decoded.params.errors, ...decoded.query.errors, ...decoded.body.errors },
    ip: request.ip,
    caller: request.caller,
  };
  await hitRateLimits(limits, request, input);
}

/** Hit each rule's counter for this request (429 past its limit), keyed as the rule says. */
export async function hitRateLimits(
  limits: readonly EndpointRateLimit[],
  request: FastifyRequest,
  input: RateLimitInput,
): Promise<void> {
  const services = request.server.citadel;
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

/**
 * The handler's input for this request (params, query and body already decoded and checked): the
 * request's context itself, holding them.
 */
function inputOf(
  request: FastifyRequest,
  parts: Pick<EndpointInput, 'params' | 'query' | 'body'>,
): EndpointInput {
  const context = contextOf(request) as FastifyRequestContext;
  context.params = parts.params;
  context.query = parts.query;
  context.body = parts.body;
  return context as EndpointInput;
}

/** The headers of a CORS answer: any origin, no credentials, the headers a client reads. */
const CORS_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'WWW-Authenticate, Retry-After, Location',
} as const;

async function allowAnyOrigin(_request: FastifyRequest, reply: FastifyReply, payload: unknown) {
  reply.headers(CORS_HEADERS);
  return payload;
}

/** Paths whose preflight is answered, per server (two endpoints may share a path). */
const preflightPaths = new WeakMap<FastifyInstance, Set<string>>();

/** A request header list a preflight may name: field names only. */
const HEADER_LIST = /^[A-Za-z0-9-]+(\s*,\s*[A-Za-z0-9-]+)*$/;

/**
 * `OPTIONS` at each path of a CORS endpoint: 204 with `Allow`, the methods the path serves and
 * the headers the client asked to send (field names only), cached by the browser ten minutes.
 */
function answerPreflights(app: FastifyInstance, paths: readonly string[]): void {
  const answered = preflightPaths.get(app) ?? new Set<string>();
  preflightPaths.set(app, answered);
  for (const path of paths) {
    if (answered.has(path)) continue;
    answered.add(path);
    app.route({
      method: 'OPTIONS',
      url: path,
      config: { cors: true },
      handler: (request, reply) => {
        const allow = allowedMethods(request) ?? 'OPTIONS';
        const asked = request.headers['access-control-request-headers'];
        return reply
          .code(204)
          .headers({
            ...CORS_HEADERS,
            allow,
            'access-control-allow-methods': allow,
            'access-control-allow-headers':
              typeof asked === 'string' && asked.length <= 500 && HEADER_LIST.test(asked)
                ? asked
                : 'Authorization, Content-Type',
            'access-control-max-age': '600',
          })
          .send();
      },
    });
  }
}

/** Serve one declaration (and its aliases) as Fastify routes of `app`. */
export function registerEndpoint(app: FastifyInstance, endpoint: AnyEndpoint): void {
  const params = inputReader<unknown>(endpoint.params);
  const query = inputReader<unknown>(endpoint.query);
  const body = inputReader<unknown>(endpoint.body);
  const { pageProps } = endpoint;
  if (
    endpoint.orgRole !== undefined &&
    (endpoint.auth === 'anonymous' || endpoint.auth === 'optional' || !endpoint.path.includes('/:id'))
  )
    throw new ConfigError(`${endpoint.path}: orgRole needs a caller (auth) and an :id path parameter`);

  const limits = endpoint.rateLimit === undefined ? [] : [endpoint.rateLimit].flat();

  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const decoded = {
      params: params.decode(request.params),
      query: query.decode(request.query),
      body: body.decode(
        request.body,
        endpoint.refine && ((value) => endpoint.refine!(value as never, request.server.citadel)),
      ),
    };
    if (limits.length > 0) await countRequest(limits, request, decoded);
    const input = inputOf(request, {
      params: validOrThrow(decoded.params),
      query: validOrThrow(decoded.query),
      body: validOrThrow(decoded.body),
    });
    const context = contextOf(request);
    let result;
    try {
      if (endpoint.orgRole !== undefined)
        (input as { membership?: unknown }).membership = await membershipFor(endpoint, request, input.params);
      result = await endpoint.handler(input as never);
    } catch (error) {
      // The error answer carries the cookies asked for so far; the session changes it keeps are
      // stored once the error is answered (`sessionPlugin`).
      writeCookies(reply, context);
      throw error;
    }
    // The session, its events and cookies commit after the answer is shaped (a form client's
    // flash message, a page's CSRF token) and before it is sent.
    const commit = () => commitRequest(request, reply, context);
    if (result.headers) reply.headers(result.headers);
    // A sign-in that a listener continues elsewhere (a waiting authorization request).
    // (Set on the handler's input, which inherits from the request's context.)
    if (input.signInContinue !== undefined && result.redirect_to !== undefined && input.caller)
      result = { ...result, redirect_to: input.signInContinue };
    if (result.location !== undefined) {
      await commit();
      return reply.redirect(result.location, 302);
    }
    if (result.json !== undefined) {
      await commit();
      // The protocol's own body, never reshaped by the declared (envelope) schemas.
      return reply
        .code(result.statusCode ?? 200)
        .type('application/json; charset=utf-8')
        .serializer(JSON.stringify)
        .send(result.json);
    }
    return respond(
      request,
      reply,
      {
        action: result.action ?? endpoint.action,
        status: result.status,
        statusCode: result.statusCode,
        message: result.message,
        user: result.user,
        data: result.data,
        redirectTo: result.redirect_to,
        errors: result.errors,
        fields: result.fields,
        render: result.render,
      },
      commit,
    );
  };

  const options: Omit<RouteOptions, 'method' | 'url' | 'handler'> = {
    config: {
      action: endpoint.action,
      page: endpoint.page,
      // Decoded as the handler's input is; a page shown after a refusal gets the fields that passed.
      pageProps: pageProps
        ? (request: FastifyRequest) =>
            pageProps(
              inputOf(request, {
                params: validFields(params.decode(request.params)),
                query: validFields(query.decode(request.query)),
                body: validFields(body.decode(request.body)),
              }) as never,
            )
        : undefined,
      csrfExempt: endpoint.csrfExempt,
      cors: endpoint.cors,
      secrets: endpoint.secrets,
      jsonOnly: endpoint.jsonOnly,
      alwaysJson: endpoint.alwaysJson,
      endpoint,
    },
    // JSON answers are serialized from the declared schemas (form clients get pages or redirects).
    schema: { response: endpoint.responses },
    preHandler: hookOf((request) => checkAccess(endpoint, request)),
    // Every answer, the refusals too, readable by a page of any origin (no credentials).
    ...(endpoint.cors ? { onSend: allowAnyOrigin } : {}),
  };
  if (endpoint.cors)
    answerPreflights(app, [endpoint.path, ...(endpoint.aliases ?? []).map((alias) => alias.path)]);
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
