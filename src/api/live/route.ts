import type { FastifyInstance, FastifyRequest } from 'fastify';
import { BadRequestError } from '../../core/errors.ts';
import type { CompiledResource } from '../resource/compile.ts';
import type { IdCodecs } from '../resource/sqids.ts';
import type { RequestScope } from '../request/context.ts';
import type { MaybePromise } from '../request/maybe-promise.ts';
import { parseListQuery, type QueryInput } from '../request/query.ts';
import { isFilterParameter } from '../request/filters.ts';
import { isFieldsParameter } from '../request/fields.ts';
import { checkListPlan } from '../request/plan.ts';
import type { Verb } from '../resource/types.ts';
import { credentialOf } from './credentials.ts';
import { Subscriber, type LiveHub } from './hub.ts';
import { SseStream } from './sse-stream.ts';

/** The path of a resource's live route under its version. */
export function livePath(version: string, resource: CompiledResource): string {
  return `/${version}/${resource.name}/live`;
}

/** A live query holds the list's filters and `fields`, nothing else (no page, sort, search). */
function liveQuery(resource: CompiledResource, query: QueryInput): QueryInput {
  for (const name of Object.keys(query)) {
    if (isFilterParameter(name) || isFieldsParameter(name) || resource.filterable.has(name)) continue;
    const reason = 'is not a parameter of a live stream (filter, fields and the filterable columns)';
    throw new BadRequestError(`The query parameter "${name}" ${reason}.`, {
      invalidParams: [{ name, reason }],
    });
  }
  return query;
}

let ownGroups = 0;

/** Reconnect hint of an answer that cannot stream (milliseconds). */
const BUFFERED_RETRY_MS = 3000;

/**
 * Whether this request's answer is collected whole before it is handed on: an injected request
 * (light-my-request, which createFetchHandler uses) that did not ask for a stream.
 */
function isBuffered(request: FastifyRequest): boolean {
  const injected = (request.raw as { _lightMyRequest?: { payloadAsStream?: boolean } })._lightMyRequest;
  return injected !== undefined && injected.payloadAsStream !== true;
}

/**
 * Streams whose list reads are the same statement get their events judged once: the same plan and
 * the same caller identity (user, token and its abilities, organization and role). A resource whose
 * hooks may read the request itself (not only the caller) judges each stream on its own.
 */
function groupOf(
  resource: CompiledResource,
  version: string,
  query: QueryInput,
  scope: RequestScope,
): string {
  const hooks = resource.hooks;
  const readsRequest =
    (hooks.beforeQuery || hooks.rowAlternatives || hooks.afterQuery) &&
    resource.config.beforeQueryReads !== 'caller';
  if (readsRequest) return `own ${(ownGroups += 1)}`;
  const plan = JSON.stringify(Object.entries(query).sort(([a], [b]) => (a < b ? -1 : 1)));
  const tenant = scope.tenant;
  const caller = scope.caller;
  return JSON.stringify([
    resource.name,
    version,
    plan,
    scope.user?.id ?? null,
    scope.token ? [scope.token.id, [...scope.token.abilities].sort()] : null,
    caller?.via === 'session' ? (caller.impersonator?.id ?? null) : (caller?.via ?? null),
    tenant ? [tenant.organizationId, tenant.role, [...tenant.permissions].sort()] : null,
  ]);
}

/**
 * `GET /{version}/{resource}/live`: the list's changes as Server-Sent Events, with the list's
 * authentication (checked like a list read, 401/403) and its `filter` and `fields` (400).
 */
export function registerLiveRoute(
  scope: FastifyInstance,
  resource: CompiledResource,
  version: string,
  codecs: IdCodecs,
  begin: (verb: Verb, request: FastifyRequest) => MaybePromise<RequestScope>,
  hub: LiveHub,
): void {
  scope.get(livePath(version, resource), async (request, reply) => {
    const query = liveQuery(resource, request.query as QueryInput);
    const plan = parseListQuery(resource, query, codecs, request.server.dialect);
    const context = await begin('get', request);
    checkListPlan(context, request.server.secrets, resource, plan);
    const userId = request.caller?.user.id ?? null;
    const release = hub.admit(userId);
    const stream = new SseStream(hub.options.bufferBytes, () => reply.raw.writableLength ?? 0);
    stream.whenEnded(release);
    const subscriber = new Subscriber(
      { resource, plan, scope: context },
      groupOf(resource, version, query, context),
      stream,
      userId,
      credentialOf(request),
    );
    // The client went away, or the stream ended: its slot is free, and its connection is not kept
    // (a client that stopped reading would otherwise hold it open, and shutdown would wait for it).
    reply.raw.once('close', () => {
      stream.close();
      reply.raw.socket?.destroy?.();
    });
    const lastEventId = request.headers['last-event-id'];
    const buffered = isBuffered(request);
    hub.open(subscriber, typeof lastEventId === 'string' ? lastEventId : undefined).then(
      // A host that hands on whole answers only (createFetchHandler) gets what the stream has now
      // (its position, or the events it missed) and a reconnect hint: polling with Last-Event-ID.
      () => buffered && stream.close(BUFFERED_RETRY_MS),
      (error: unknown) => {
        request.log.warn({ err: error }, 'live stream could not start');
        stream.close();
      },
    );
    stream.comment('connected');
    // Fastify pipes the body into the response; when it pipes this very stream (no onSend hook put
    // another in its place), the stream may write to the response directly while it holds nothing.
    reply.raw.once('pipe', (source) => {
      if (source === stream.body) stream.pipedInto(reply.raw);
    });
    return reply
      .header('content-type', 'text/event-stream; charset=utf-8')
      .header('cache-control', 'no-cache')
      .header('x-accel-buffering', 'no')
      .send(stream.body);
  });
}
