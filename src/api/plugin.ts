import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { NotFoundError } from '../core/errors.ts';
import { cacheByCaller } from '../http/cache-control.ts';
import { authorize } from './authorize.ts';
import { compileApi, publishedIn, type CompiledResource } from './compile.ts';
import type { RequestScope } from './context.ts';
import { formatRecord } from './format.ts';
import { problemErrorHandler, problemNotFound } from './problem.ts';
import { refuseNulCharacters } from './nul.ts';
import { limitPayloadShape } from './request-limits.ts';
import { parseItemQuery, parseListQuery, type QueryInput } from './query.ts';
import { findRecord, listRecords } from './read.ts';
import { deploymentCodecs, type IdCodecs } from './sqids.ts';
import type { ApiConfig, Verb } from './types.ts';
import { createRecords, deleteRecord, updateRecord } from './write.ts';

function parseId(resource: CompiledResource, codecs: IdCodecs, raw: string): number | string {
  if (resource.pkObfuscated) {
    const id = codecs.of(resource.idSpaces.get(resource.primaryKey)!).decode(raw);
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
  codecs: IdCodecs,
): void {
  const collection = `/${version}/${resource.name}`;
  const item = `${collection}/:id`;
  // Only served verbs get a route: any other method on these paths is the not-found handler's
  // 405, whose Allow header lists exactly the routes there are.
  const available = (verb: Verb) => resource.served.has(verb);

  const begin = (verb: Verb, request: FastifyRequest): RequestScope => {
    const { user, token } = authorize(resource, verb, request);
    return { version, verb, request, user, token, codecs, db: request.server.db };
  };
  const idOf = (request: FastifyRequest) => parseId(resource, codecs, (request.params as { id: string }).id);

  if (available('get'))
    scope.get(collection, async (request: FastifyRequest, reply: FastifyReply) => {
      const context = begin('get', request);
      const plan = parseListQuery(resource, request.query as QueryInput, codecs, request.server.dialect);
      const { records, pagination } = await listRecords(context, resource, plan);
      return reply.send({
        status: 'success',
        data: records.map((record) => formatRecord(resource, record, plan.derive, codecs)),
        pagination,
      });
    });

  if (available('get'))
    scope.get(item, async (request, reply) => {
      const context = begin('get', request);
      const derive = parseItemQuery(resource, request.query as QueryInput);
      const record = await findRecord(context, resource, idOf(request), derive);
      if (!record) throw new NotFoundError(`No ${resource.name} record has this id.`);
      return reply.send({ status: 'success', data: formatRecord(resource, record, derive, codecs) });
    });

  if (available('post'))
    scope.post(collection, async (request, reply) => {
      const context = begin('post', request);
      const data = await createRecords(context, resource, resource.validators.post!, request.body);
      return reply.code(201).send({ status: 'success', data });
    });

  for (const verb of ['put', 'patch'] as const) {
    if (!available(verb)) continue;
    scope.route({
      method: verb.toUpperCase() as 'PUT' | 'PATCH',
      url: item,
      handler: async (request, reply) => {
        const context = begin(verb, request);
        const id = idOf(request);
        const data = await updateRecord(context, resource, resource.validators[verb]!, id, request.body);
        return reply.send({ status: 'success', data });
      },
    });
  }

  if (available('delete'))
    scope.delete(item, async (request, reply) => {
      const context = begin('delete', request);
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

  await app.register(
    async (scope) => {
      scope.setErrorHandler(problemErrorHandler);
      scope.setNotFoundHandler(problemNotFound);
      scope.addHook('onSend', cacheByCaller);
      scope.addHook('preValidation', limitPayloadShape);
      scope.addHook('preValidation', refuseNulCharacters);
      for (const publication of api.publications) {
        for (const resource of compiled.values()) {
          if (publishedIn(resource.config, publication.version))
            registerResource(scope, resource, publication.version, codecs);
        }
      }
    },
    { prefix: api.apiBaseUrl },
  );
}
