import { createHmac } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { HttpError } from '../../core/errors.ts';
import type { SecretBox } from '../../core/crypto.ts';
import type { CompiledResource } from '../resource/compile.ts';
import type { AnyDb } from '../request/context.ts';
import type { ApiRecord } from '../resource/types.ts';

function storedValue(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value instanceof Date ? value.toISOString() : value;
}

const columnLists = new WeakMap<CompiledResource, readonly string[]>();

function columnList(resource: CompiledResource): readonly string[] {
  let columns = columnLists.get(resource);
  if (!columns) {
    columns = [...resource.columns];
    columnLists.set(resource, columns);
  }
  return columns;
}

/**
 * Optimistic concurrency. A record's ETag is strong and made from every
 * stored column (hidden ones too, so that any change shows), through an HMAC: a hidden value cannot
 * be guessed by hashing candidates against it.
 */
export function etagOf(secrets: SecretBox, resource: CompiledResource, row: ApiRecord): string {
  const columns = columnList(resource);
  const values: unknown[] = new Array(columns.length);
  // Only a bigint or a Date needs the replacer; without one, JSON.stringify takes its fast path.
  // (A nested value comes from JSON.parse, which makes neither.)
  let special = false;
  for (let i = 0; i < columns.length; i++) {
    const value = row[columns[i]!] ?? null;
    if (typeof value === 'bigint' || value instanceof Date) special = true;
    values[i] = value;
  }
  const text = special ? JSON.stringify(values, storedValue) : JSON.stringify(values);
  const digest = createHmac('sha256', secrets.key('hmac:api-etag'))
    .update(`${resource.name}\n${text}`)
    .digest('base64url')
    .slice(0, 27);
  return `"${digest}"`;
}

class PreconditionFailedError extends HttpError {
  override name = 'PreconditionFailedError';
  constructor(resource: string) {
    super(412, `The ${resource} record has changed since the ETag given in If-Match.`);
  }
}

/** The entity tags of an If-Match / If-None-Match list; `*` as itself. */
function tags(header: string): string[] {
  return header
    .split(',')
    .map((tag) => tag.trim())
    .filter((tag) => tag !== '');
}

function single(request: FastifyRequest, name: 'if-match' | 'if-none-match'): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(',') : value;
}

/** Whether a request asks for a precondition on the record (If-Match). */
export function hasIfMatch(request: FastifyRequest): boolean {
  return single(request, 'if-match') !== undefined;
}

/** If-Match (strong comparison): 412 when no tag matches the record's current ETag. */
export function checkIfMatch(request: FastifyRequest, resource: CompiledResource, current: string): void {
  const header = single(request, 'if-match');
  if (header === undefined) return;
  const list = tags(header);
  if (list.includes('*') || list.includes(current)) return;
  throw new PreconditionFailedError(resource.name);
}

/** If-None-Match (weak comparison, RFC 9110 13.1.2): true when the client's copy is current. */
export function notModified(request: FastifyRequest, current: string): boolean {
  const header = single(request, 'if-none-match');
  if (header === undefined) return false;
  const opaque = current.replace(/^W\//, '');
  return tags(header).some((tag) => tag === '*' || tag.replace(/^W\//, '') === opaque);
}

/**
 * The stored row of a record, locked until the transaction ends where the database can (SQLite
 * runs one write transaction at a time): two writers with the same If-Match are then ordered, and
 * the second one sees the first one's change.
 */
export async function lockedRow(
  trx: AnyDb,
  resource: CompiledResource,
  id: unknown,
  dialect: string,
): Promise<ApiRecord | undefined> {
  let query = trx
    .selectFrom(resource.table)
    .select(resource.select)
    .where(`${resource.table}.${resource.primaryKey}`, '=', id);
  if (dialect !== 'sqlite') query = query.forUpdate();
  return (await query.executeTakeFirst()) as ApiRecord | undefined;
}

/** If-Match of a DELETE (or any write of one record) inside its transaction: the row locked, then compared. */
export async function guardIfMatch(
  request: FastifyRequest,
  resource: CompiledResource,
  id: unknown,
  trx: AnyDb,
): Promise<void> {
  if (!hasIfMatch(request)) return;
  const { secrets, dialect } = request.server;
  const row = await lockedRow(trx, resource, id, dialect);
  if (row) checkIfMatch(request, resource, etagOf(secrets, resource, row));
}
