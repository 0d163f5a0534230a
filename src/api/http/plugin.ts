import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { NotFoundError } from '../../core/errors.ts';
import { cacheByCaller } from '../../http/response/cache-control.ts';
import { hookOf } from '../../http/request/hooks.ts';
import { authorize } from '../request/authorize.ts';
import { activeTenant, type ActiveTenant } from '../../auth/core/tenancy.ts';
import { andThen, isThenable } from '../request/maybe-promise.ts';
import { compileApi, publishedIn, type CompiledResource } from '../resource/compile.ts';
import { callContext, type RequestScope } from '../request/context.ts';
import { formatRecord } from '../read/format.ts';
import { readResponseSchemas, recordCheck, sendRead } from './serializers.ts';
import { problemErrorHandler, problemNotFound } from './problem.ts';
import { refuseNulCharacters } from '../request/nul.ts';
import { limitPayloadShape } from '../request/request-limits.ts';
import { parseItemQuery, parseListQuery, type QueryInput } from '../request/query.ts';
import { authorizeDerive, checkListPlan } from '../request/plan.ts';
import { findRecord, listRecords } from '../read/read.ts';
import { deploymentCodecs, type IdCodecs } from '../resource/sqids.ts';
import { keyValue } from '../resource/column-types.ts';
import type { ApiConfig, ApiRecord, Verb } from '../resource/types.ts';
import { createRecords, deleteRecord } from '../write/write.ts';
import { updateRecord } from '../write/update.ts';
import { etagOf, notModified } from '../write/etag.ts';
import { claimKey, completeKey, idempotencyKey, releaseKey, replay } from '../write/idempotency.ts';
import type { LiveHub } from '../live/hub.ts';
import { registerLiveRoute } from '../live/route.ts';
import { startLiveHub } from '../live/start.ts';

function parseId(resource: CompiledResource, codecs: IdCodecs, raw: string): number | string {
  if (resource.pkObfuscated) {
    const id = codecs.of(resource.idSpaces.get(resource.primaryKey)!).decode(raw);
    if (id === null) throw new NotFoundError(`No ${resource.name} record has this id.`);
    return id;
  }
  // Outside the column's range (or not of its type): an unknown id, never a database error.
  const id = keyValue(resource.columnTypes.get(resource.primaryKey), raw, true);
  if (id === null) throw new NotFoundError(`No ${resource.name} record has this id.`);
  return id;
}

/** Whether a request of this resource can run a hook: its own, or one of a resource it relates to. */
function hooksReachable(resource: CompiledResource): boolean {
  const seen = new Set<CompiledResource>();
  const stack = [resource];
  while (stack.length > 0) {
    const next = stack.pop()!;
    if (seen.has(next)) continue;
    seen.add(next);
    if (Object.values(next.hooks).some(Boolean)) return true;
    for (const relation of next.relations.values())
      if (relation.target.resource) stack.push(relation.target.resource);
  }
  return false;
}

function registerResource(
  scope: FastifyInstance,
  resource: CompiledResource,
  version: string,
  codecs: IdCodecs,
  /** Some resource of the API is tenant-scoped: resolve the active organization first. */
  tenants: boolean,
  /** The live changes' hub, when a resource is live. */
  live: LiveHub | null,
): void {
  const collection = `/${version}/${resource.name}`;
  const item = `${collection}/:id`;
  // Only served verbs get a route: any other method on these paths is the not-found handler's
  // 405, whose Allow header lists exactly the routes there are.
  const available = (verb: Verb) => resource.served.has(verb);

  // A hook may run (this resource's or a related one's): its context is built once per request.
  const hooked = hooksReachable(resource);
  const scopeOf = (verb: Verb, request: FastifyRequest, tenant: ActiveTenant | null): RequestScope => {
    const { user, token, caller } = authorize(resource, verb, request);
    const scope: RequestScope = {
      version,
      verb,
      request,
      user,
      token,
      codecs,
      db: request.server.db,
      tenant,
      caller,
      call: null,
    };
    if (hooked) scope.call = callContext(scope);
    return scope;
  };
  // A promise only when there is an organization to look up: a caller, and a tenant-scoped API or
  // hooks that see the organization.
  const begin = (verb: Verb, request: FastifyRequest): RequestScope | Promise<RequestScope> =>
    request.caller && (tenants || (hooked && request.server.citadel.tenancy))
      ? activeTenant(request, request.server.citadel).then((tenant) => scopeOf(verb, request, tenant))
      : scopeOf(verb, request, null);
  const idOf = (request: FastifyRequest) => parseId(resource, codecs, (request.params as { id: string }).id);

  if (live && resource.config.live && available('get'))
    registerLiveRoute(scope, resource, version, codecs, begin, live);

  const schemas = readResponseSchemas(resource);
  const check = recordCheck(resource);

  if (available('get'))
    scope.get(
      collection,
      { schema: { response: schemas.list } },
      async (request: FastifyRequest, reply: FastifyReply) => {
        // The query is checked first: its problems say nothing about the caller or the rows.
        const plan = parseListQuery(resource, request.query as QueryInput, codecs, request.server.dialect);
        const context = await begin('get', request);
        // The whole plan for this caller (cursor, derive) is checked before any statement runs.
        checkListPlan(context, request.server.secrets, resource, plan);
        const { records, pagination } = await listRecords(context, resource, plan);
        const data = records.map((record) =>
          formatRecord(resource, record, plan.derive, codecs, plan.fields),
        );
        return sendRead(reply, { status: 'success', data, pagination }, data, check, plan.fields !== null);
      },
    );

  if (available('get'))
    scope.get(item, { schema: { response: schemas.item } }, (request, reply) => {
      const { derive, fields } = parseItemQuery(
        resource,
        request.query as QueryInput,
        request.server.dialect,
      );
      let etag: string | null = null;
      // A sparse read does not hold the whole record: no ETag for it.
      const onRow = fields
        ? undefined
        : (row: ApiRecord) => (etag = etagOf(request.server.secrets, resource, row));
      const sent = andThen(begin('get', request), (context) => {
        const id = idOf(request);
        authorizeDerive(context, derive);
        return andThen(findRecord(context, resource, id, derive, undefined, fields, onRow), (record) => {
          if (!record) throw new NotFoundError(`No ${resource.name} record has this id.`);
          if (etag !== null) {
            reply.header('etag', etag);
            if (notModified(request, etag)) return reply.code(304).send();
          }
          const data = formatRecord(resource, record, derive, codecs, fields);
          return sendRead(reply, { status: 'success', data }, [data], check, fields !== null);
        });
      });
      // Answered at once (a SQLite point read, hooks that do not wait): nothing for Fastify to await.
      return isThenable(sent) ? sent : undefined;
    });

  if (available('post'))
    scope.post(collection, async (request, reply) => {
      const context = await begin('post', request);
      const key = idempotencyKey(request);
      const db = request.server.db;
      const outcome =
        key === null
          ? null
          : await claimKey(
              db,
              request,
              context.user?.id ?? null,
              key,
              // A key used in another organization is another request (422), never a replay of it.
              resource.tenant === null
                ? request.body
                : { organization: context.tenant?.organizationId, body: request.body },
            );
      if (outcome && 'replay' in outcome) return replay(reply, outcome.replay);
      const claim = outcome?.claim ?? null;
      const etags: string[] = [];
      let data: unknown;
      try {
        data = await createRecords(context, resource, resource.validators.post!, request.body, etags);
      } catch (error) {
        if (claim) await releaseKey(db, claim);
        throw error;
      }
      const body = JSON.stringify({ status: 'success', data });
      const etag = Array.isArray(data) ? null : (etags[0] ?? null);
      if (claim) await completeKey(db, claim, 201, body, etag);
      if (etag) reply.header('etag', etag);
      return reply.code(201).type('application/json; charset=utf-8').send(body);
    });

  for (const verb of ['put', 'patch'] as const) {
    if (!available(verb)) continue;
    scope.route({
      method: verb.toUpperCase() as 'PUT' | 'PATCH',
      url: item,
      handler: async (request, reply) => {
        const context = await begin(verb, request);
        const id = idOf(request);
        const { record, etag } = await updateRecord(
          context,
          resource,
          resource.validators[verb]!,
          id,
          request.body,
        );
        return reply.header('etag', etag).send({ status: 'success', data: record });
      },
    });
  }

  if (available('delete'))
    scope.delete(item, async (request, reply) => {
      const context = await begin('delete', request);
      const id = idOf(request);
      await deleteRecord(context, resource, id);
      return reply.send({
        status: 'success',
        data: {
          id: resource.pkObfuscated ? codecs.of(resource.idSpaces.get(resource.primaryKey)!).encode(id) : id,
        },
      });
    });
}

/**
 * The resource API: every published version's resource routes under `apiBaseUrl`, in an
 * encapsulated scope whose errors and 404s are problem details (the auth routes keep their envelope).
 */
export async function resourceApi(app: FastifyInstance, options: { api: ApiConfig }): Promise<void> {
  const { api } = options;
  const compiled = compileApi(api, app.dialect);
  const { config, secrets } = app;
  const codecs = deploymentCodecs(secrets, config);
  const tenants = [...compiled.values()].some((resource) => resource.tenant !== null);
  const live = [...compiled.values()].some((resource) => resource.config.live)
    ? await startLiveHub(app, api)
    : null;

  await app.register(
    async (scope) => {
      scope.setErrorHandler(problemErrorHandler);
      scope.setNotFoundHandler(problemNotFound);
      scope.addHook('onSend', cacheByCaller);
      scope.addHook('preValidation', hookOf(limitPayloadShape, refuseNulCharacters));
      for (const publication of api.publications) {
        for (const resource of compiled.values()) {
          if (publishedIn(resource.config, publication.version))
            registerResource(scope, resource, publication.version, codecs, tenants, live);
        }
      }
    },
    { prefix: api.apiBaseUrl },
  );
}
