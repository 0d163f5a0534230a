import type { FastifyReply } from 'fastify';
import type { CompiledResource, OutputKind } from '../resource/compile.ts';
import type { ApiRecord } from '../resource/types.ts';

/*
 * Response serializers of the resource routes, compiled by Fastify (fast-json-stringify) from a
 * schema per resource: the record's visible columns with their JSON types, in the order
 * `formatRecord` writes them; anything else on a record (derived relations, fields an `afterQuery`
 * hook added, declared or not) is an additional property, written as JSON.stringify would.
 *
 * A compiled serializer coerces a value to its schema's type, and a hook may put a value of
 * another type in a column's place. So before an answer uses it, each record's typed columns are
 * checked (one `typeof` each); an answer with any other value, or a sparse fieldset (whose keys
 * follow the client's order), is sent with JSON.stringify instead. Either way the bytes are the
 * same as JSON.stringify's.
 */

type JsonType = 'string' | 'number' | 'boolean';

/** The JSON type each kind of output field has after `formatRecord` (or null: any JSON value). */
const JSON_TYPES: Record<OutputKind, JsonType | null> = {
  id: 'string',
  plain: null,
  integer: 'number',
  number: 'number',
  bigint: 'string',
  decimal: 'string',
  boolean: 'boolean',
  string: 'string',
  text: 'string',
  date: 'string',
  datetime: 'string',
  json: null,
};

function recordSchema(resource: CompiledResource) {
  const properties: Record<string, object> = {};
  for (const field of resource.output) {
    const type = JSON_TYPES[field.kind];
    properties[field.key] = type === null ? {} : { type: [type, 'null'] };
  }
  return { type: 'object', properties, additionalProperties: true };
}

/** The 200 schemas of the item and collection GET routes. */
export function readResponseSchemas(resource: CompiledResource): {
  item: Record<number, object>;
  list: Record<number, object>;
} {
  const record = recordSchema(resource);
  return {
    item: { 200: { type: 'object', properties: { status: { type: 'string' }, data: record } } },
    list: {
      200: {
        type: 'object',
        properties: { status: { type: 'string' }, data: { type: 'array', items: record }, pagination: {} },
      },
    },
  };
}

export type RecordCheck = (record: ApiRecord) => boolean;

/** True when every typed column of a formatted record holds null or a value of its JSON type. */
export function recordCheck(resource: CompiledResource): RecordCheck {
  const typed = resource.output.flatMap((field) => {
    const type = JSON_TYPES[field.kind];
    return type === null ? [] : [{ key: field.key, type }];
  });
  const keys = typed.map((field) => field.key);
  const types = typed.map((field) => field.type);
  const count = typed.length;
  return (record) => {
    for (let i = 0; i < count; i++) {
      const value = record[keys[i]!];
      if (value === null) continue;
      const type = types[i]!;
      if (typeof value !== type) return false;
      // JSON.stringify writes NaN and Infinity as null; keep that to it.
      if (type === 'number' && !Number.isFinite(value)) return false;
    }
    return true;
  };
}

/**
 * Send a read's answer: through the route's compiled serializer when its records fit the schema,
 * else (a sparse fieldset, a value of another type) as JSON.stringify's text, same content type.
 */
export function sendRead(
  reply: FastifyReply,
  body: { status: string; data: unknown; pagination?: unknown },
  records: readonly ApiRecord[],
  check: RecordCheck,
  sparse: boolean,
): FastifyReply {
  if (!sparse && records.every(check)) return reply.send(body);
  return reply.type('application/json; charset=utf-8').send(JSON.stringify(body));
}
