import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { HttpError, NotFoundError } from '../core/errors.ts';
import { authorize } from './authorize.ts';
import { compileApi, publishedIn, type CompiledResource } from './compile.ts';
import type { RequestScope } from './context.ts';
import { formatRecord } from './format.ts';
import { problemErrorHandler, problemNotFound } from './problem.ts';
import { refuseNulCharacters } from './nul.ts';
import { limitPayloadShape } from './request-limits.ts';
import { parseItemQuery, parseListQuery, type QueryInput } from './query.ts';
import { findRecord, listRecords } from './read.ts';
import { deploymentAlphabet, IdCodec } from './sqids.ts';
import type { ApiConfig, ApiRecord, Verb } from './types.ts';
import { createRecords, deleteRecord } from './write.ts';
import { updateRecord } from './update.ts';
import { etagOf, notModified } from './etag.ts';
import { claimKey, completeKey, idempotencyKey, releaseKey, replay } from './idempotency.ts';

class MethodNotAllowedError extends HttpError {
  override name = 'MethodNotAllowedError';
  constructor(resource: string, verb: Verb, allow: string) {
    super(405, `${verb.toUpperCase()} is not available on ${resource}.`, { headers: { allow } });
  }
}

function parseId(resource: CompiledResource, codec: IdCodec, raw: string): number | string {
  if (resource.pkObfuscated) {
    const id = codec.decode(raw);
    if (id === null) throw new NotFoundError(`No ${resource.name} record has this id.`);
    return id;
  }
  if (resource.columnTypes.get(resource.primaryKey) === 'integer') {
    if (!/^(0|[1-9][0-9]{0,14})$/.test(raw))
      throw new NotFoundError(`No ${resource.name} record has this id.`);
    return Number(raw);
  }
  return raw;
}

function registerResource(
  scope: FastifyInstance,
  resource: CompiledResource,
  version: string,
  codec: IdCodec,
): void {
  const collection = `/${version}/${resource.name}`;
  const item = `${collection}/:id`;
  const available = (verb: Verb) => resource.served.has(verb);
  const allowCollection = ['get', 'post']
    .filter((v) => available(v as Verb))
    .map((v) => v.toUpperCase())
    .join(', ');
  const allowItem = ['get', 'put', 'patch', 'delete']
    .filter((v) => available(v as Verb))
    .map((v) => v.toUpperCase())
    .join(', ');

  const begin = (verb: Verb, request: FastifyRequest): RequestScope => {
    if (!available(verb))
      throw new MethodNotAllowedError(resource.name, verb, verb === 'post' ? allowCollection : allowItem);
    const { user, token } = authorize(resource, verb, request);
    return { version, verb, request, user, token, codec, db: request.server.db };
  };
  const idOf = (request: FastifyRequest) => parseId(resource, codec, (request.params as { id: string }).id);

  scope.get(collection, async (request: FastifyRequest, reply: FastifyReply) => {
    const context = begin('get', request);
    const plan = parseListQuery(resource, request.query as QueryInput, codec, request.server.dialect);
    const { records, pagination } = await listRecords(context, resource, plan);
    return reply.send({
      status: 'success',
      data: records.map((record) => formatRecord(resource, record, plan.derive, codec, plan.fields)),
      pagination,
    });
  });

  scope.get(item, async (request, reply) => {
    const context = begin('get', request);
    const { derive, fields } = parseItemQuery(resource, request.query as QueryInput, request.server.dialect);
    let etag: string | null = null;
    // A sparse read does not hold the whole record: no ETag for it.
    const onRow = fields
      ? undefined
      : (row: ApiRecord) => (etag = etagOf(request.server.secrets, resource, row));
    const record = await findRecord(context, resource, idOf(request), derive, undefined, fields, onRow);
    if (!record) throw new NotFoundError(`No ${resource.name} record has this id.`);
    if (etag !== null) {
      reply.header('etag', etag);
      if (notModified(request, etag)) return reply.code(304).send();
    }
    return reply.send({ status: 'success', data: formatRecord(resource, record, derive, codec, fields) });
  });

  scope.post(collection, async (request, reply) => {
    const context = begin('post', request);
    const key = idempotencyKey(request);
    const db = request.server.db;
    const outcome =
      key === null ? null : await claimKey(db, request, context.user?.id ?? null, key, request.body);
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
    scope.route({
      method: verb.toUpperCase() as 'PUT' | 'PATCH',
      url: item,
      handler: async (request, reply) => {
        const context = begin(verb, request);
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

  scope.delete(item, async (request, reply) => {
    const context = begin('delete', request);
    const id = idOf(request);
    await deleteRecord(context, resource, id);
    return reply.send({ status: 'success', data: { id: resource.pkObfuscated ? codec.encode(id) : id } });
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
  const codec = new IdCodec(config.sqidsAlphabet ?? deploymentAlphabet(secrets), config.sqidsMinLength);

  await app.register(
    async (scope) => {
      scope.setErrorHandler(problemErrorHandler);
      scope.setNotFoundHandler(problemNotFound);
      scope.addHook('preValidation', limitPayloadShape);
      scope.addHook('preValidation', refuseNulCharacters);
      for (const publication of api.publications) {
        for (const resource of compiled.values()) {
          if (publishedIn(resource.config, publication.version))
            registerResource(scope, resource, publication.version, codec);
        }
      }
    },
    { prefix: api.apiBaseUrl },
  );
}
