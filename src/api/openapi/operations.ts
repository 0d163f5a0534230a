import type { CompiledResource } from '../resource/compile.ts';
import { MAX_BULK_ITEMS } from '../write/write.ts';
import type { Verb } from '../resource/types.ts';
import { typeSchema } from './column-schema.ts';
import { itemParameters, listParameters } from './parameters.ts';
import { componentName, JSON_TYPE, ref, type DocContext } from './names.ts';
import { VERB_TITLE } from './input-schema.ts';
import { labelsOf, operationSummary } from './summaries.ts';
import {
  dataEnvelope,
  errorResponses,
  ETAG_HEADER,
  IDEMPOTENCY_KEY,
  IF_MATCH,
  IF_NONE_MATCH,
  json,
} from './responses.ts';

/** The resources (and verbs) a POST may also touch: nested children created, parents read or created. */
function relatedWrites(resource: CompiledResource, seen: Set<CompiledResource>): [CompiledResource, Verb][] {
  if (seen.has(resource)) return [];
  seen.add(resource);
  const found: [CompiledResource, Verb][] = [];
  for (const name of resource.allowed) {
    const relation = resource.relations.get(name)!;
    const target = relation.target.resource;
    if (!target) continue;
    if (relation.type === 'hasMany' && resource.nestedWritable.has(name)) found.push([target, 'post']);
    else if (relation.type === 'belongsTo') found.push([target, 'get'], [target, 'post']);
    else continue;
    found.push(...relatedWrites(target, seen));
  }
  return found;
}

function operation(
  resource: CompiledResource,
  verb: Verb,
  id: string,
  summary: string,
  details: string,
  codes: number[],
  responses: Record<string, unknown>,
  extra: Record<string, unknown> = {},
) {
  const ability = resource.abilities[verb];
  // A tenant-scoped resource always needs a caller.
  const required = resource.requiredAuth.has(verb) || resource.tenant !== null;
  // Nested children and parent objects bring their own resource's authentication (write.ts).
  const related = verb === 'post' ? relatedWrites(resource, new Set()) : [];
  const forbidden =
    required || related.some(([target, v]) => target.requiredAuth.has(v) || target.tenant !== null);
  const tenant = resource.tenant;
  const note =
    tenant !== null
      ? `Tenant-scoped by \`${tenant}\`: acts in the caller's active organization only (its rows alone are seen; writes set \`${tenant}\` and refuse another value, 422). Requires a caller with an active organization (none → 403) whose role holds the permission \`${ability}\` (or \`${resource.name}:*\`, or \`*\`), and, with a bearer token, the same ability on the token (both; else 403). No caller → 401.`
      : required
        ? `Requires a caller: a session, or a bearer token with the ability \`${ability}\` (or \`${resource.name}:*\`, or \`*\`). No caller → 401; a token without the ability → 403.`
        : 'No authentication required; a caller, when present, is known to the hooks.';
  return {
    tags: [resource.name],
    operationId: id,
    summary,
    description: `${details}\n\n${note}`,
    ...extra,
    responses: {
      ...responses,
      ...errorResponses([...codes, 401, ...(forbidden ? [403] : []), 500]),
      default: ref('responses', 'HookError'),
    },
    security: required
      ? [{ bearerAuth: [] }, { cookieAuth: [] }]
      : [{}, { bearerAuth: [] }, { cookieAuth: [] }],
    ...(required || tenant !== null ? { 'x-required-ability': ability } : {}),
    ...(tenant !== null ? { 'x-citadel-tenant': tenant } : {}),
  };
}

/** Query parameters of a live stream: the list's filters and `fields`. */
function liveParameters(resource: CompiledResource, component: string): unknown[] {
  return (listParameters(resource, component) as { name: string }[]).filter(
    ({ name }) =>
      name === 'filter' ||
      name.startsWith('filter[') ||
      name.startsWith('fields') ||
      resource.filterable.has(name),
  );
}

/** `GET /{resource}/live`: Server-Sent Events, each event's `data` described in `x-citadel-events`. */
function liveOperation(
  resource: CompiledResource,
  component: string,
  keySchema: Record<string, unknown>,
  record: unknown,
) {
  const { plural } = labelsOf(resource.config);
  const withRecord = {
    type: 'object',
    properties: { id: keySchema, record },
    required: ['id', 'record'],
    additionalProperties: false,
  };
  return operation(
    resource,
    'get',
    `live${component}`,
    `Follow ${plural} as they change`,
    [
      'Server-Sent Events (`text/event-stream`): a `created`, `updated` or `deleted` event for each committed change to a record this caller could read through the list now (its authentication, abilities, organization, row rules, and the `filter` given), in commit order.',
      'A record that enters the view is `created`, one that leaves it is `deleted` (without the record). Each event has an `id`; reconnect with `Last-Event-ID` to receive every missed event in order, or one `reset` event (`data: {}`: reload the list) when they are no longer held.',
      'Comments (`: heartbeat`) keep the connection open; a stream ends when its session or token ends, and with a `retry:` hint when the server stops. A client that does not read is disconnected.',
    ].join('\n\n'),
    [
      400,
      429,
      ...([...resource.filterable].some((column) =>
        ['integer', 'bigint'].includes(resource.columnTypes.get(column)!),
      )
        ? [422]
        : []),
    ],
    {
      200: {
        description: 'The stream of events.',
        content: {
          'text/event-stream': {
            schema: { type: 'string', description: 'Server-Sent Events; see `x-citadel-events`.' },
          },
        },
      },
    },
    {
      parameters: [
        ...liveParameters(resource, component),
        {
          name: 'Last-Event-ID',
          in: 'header',
          description: 'The `id` of the last event received: the stream resumes after it.',
          schema: { type: 'string', pattern: '^[0-9]{1,15}$' },
        },
      ],
      'x-citadel-events': {
        created: withRecord,
        updated: withRecord,
        deleted: {
          type: 'object',
          properties: { id: keySchema },
          required: ['id'],
          additionalProperties: false,
        },
        reset: { type: 'object', additionalProperties: false },
      },
    },
  );
}

export function pathsOf(ctx: DocContext, resource: CompiledResource) {
  const verbs = resource.served;
  const component = componentName(resource.name);
  const record = ref('schemas', component);
  const collection: Record<string, unknown> = {};
  const item: Record<string, unknown> = {};
  const keySchema = resource.pkObfuscated
    ? { type: 'string', pattern: ctx.sqid.pattern }
    : typeSchema(resource.columnTypes.get(resource.primaryKey)!);
  const idParameter = {
    name: 'id',
    in: 'path',
    required: true,
    description: `The record's \`${resource.primaryKey}\`.`,
    schema: keySchema,
  };

  if (verbs.has('get')) {
    collection.get = operation(
      resource,
      'get',
      `list${component}`,
      operationSummary(resource.config, 'get', 'collection'),
      'One page of records with the pagination envelope.',
      // A filter on an integer column names a value outside its range: 422 (src/api/request/filters.ts).
      [...resource.filterable].some(
        (column) =>
          !resource.obfuscated.has(column) &&
          ['integer', 'bigint'].includes(resource.columnTypes.get(column)!),
      )
        ? [400, 422]
        : [400],
      {
        200: json(
          {
            type: 'object',
            properties: {
              status: { const: 'success' },
              data: { type: 'array', items: record },
              pagination: ref('schemas', 'Pagination'),
            },
            required: ['status', 'data', 'pagination'],
            additionalProperties: false,
          },
          'A page of records.',
        ),
      },
      { parameters: listParameters(resource, component) },
    );
    item.get = operation(
      resource,
      'get',
      `read${component}`,
      operationSummary(resource.config, 'get', 'item'),
      'One record by its key. With `fields` (a partial record) no ETag is sent.',
      [400, 404],
      {
        200: json(dataEnvelope(record), 'The record.', ETAG_HEADER),
        304: {
          description: '`If-None-Match` names the current ETag: the copy held is current.',
          headers: ETAG_HEADER,
        },
      },
      { parameters: [...itemParameters(resource), IF_NONE_MATCH] },
    );
  }
  if (verbs.has('post')) {
    const input = ref('schemas', `${component}Create`);
    collection.post = operation(
      resource,
      'post',
      `create${component}`,
      operationSummary(resource.config, 'post', 'collection'),
      `An object creates one record; an array (at most ${MAX_BULK_ITEMS} items) creates them all in one transaction, or none.`,
      [400, 409, 413, 415, 422],
      {
        201: json(
          dataEnvelope({ oneOf: [record, { type: 'array', items: record }] }),
          'The created record, or records for an array.',
          {
            ...ETAG_HEADER,
            'Idempotency-Replayed': {
              description: '`true` when this is the stored response of an earlier request with the same key.',
              schema: { type: 'string', enum: ['true'] },
            },
          },
        ),
      },
      {
        parameters: [IDEMPOTENCY_KEY],
        requestBody: {
          required: true,
          content: {
            [JSON_TYPE]: {
              schema: {
                oneOf: [input, { type: 'array', items: input, minItems: 1, maxItems: MAX_BULK_ITEMS }],
              },
            },
          },
        },
      },
    );
  }
  for (const verb of ['put', 'patch'] as const) {
    if (!verbs.has(verb)) continue;
    item[verb] = operation(
      resource,
      verb,
      `${verb === 'put' ? 'replace' : 'update'}${component}`,
      operationSummary(resource.config, verb, 'item'),
      verb === 'put'
        ? 'Replaces every writable field (and the whole set of each child relation given).'
        : 'Changes only the fields (and the children) given.',
      [400, 404, 409, 412, 413, 415, 422],
      { 200: json(dataEnvelope(record), 'The saved record, with each child relation written.', ETAG_HEADER) },
      {
        parameters: [IF_MATCH],
        requestBody: {
          required: true,
          content: { [JSON_TYPE]: { schema: ref('schemas', `${component}${VERB_TITLE[verb]}`) } },
        },
      },
    );
  }
  if (verbs.has('delete')) {
    item.delete = operation(
      resource,
      'delete',
      `delete${component}`,
      operationSummary(resource.config, 'delete', 'item'),
      'Deletes the record.',
      [400, 404, 409, 412],
      {
        200: json(
          dataEnvelope({ type: 'object', properties: { id: keySchema }, required: ['id'] }),
          'The key of the deleted record.',
        ),
      },
      { parameters: [IF_MATCH] },
    );
  }
  const paths: Record<string, Record<string, unknown>> = {};
  if (resource.config.live && verbs.has('get'))
    paths[`/${resource.name}/live`] = { get: liveOperation(resource, component, keySchema, record) };
  if (Object.keys(collection).length > 0) paths[`/${resource.name}`] = collection;
  if (Object.keys(item).length > 0) paths[`/${resource.name}/{id}`] = { parameters: [idParameter], ...item };
  return paths;
}
