import { HttpError, NotFoundError, ValidationError } from '../http/errors.ts';
import type { CompiledRelation, CompiledResource } from './compile.ts';
import { authorize } from './authorize.ts';
import { afterSave, beforeSave, hookContext, type AnyDb, type RequestScope } from './context.ts';
import { constraintError } from './db-errors.ts';
import { formatRecord } from './format.ts';
import type { DeriveNode } from './query.ts';
import { scopedQuery } from './read.ts';
import type { ApiRecord } from './types.ts';
import type { InvalidParam, PayloadValidator } from './validation.ts';

/** Most items one bulk array (or one nested relation) may hold. */
export const MAX_BULK_ITEMS = 1000;
/** Deepest nesting of children in one payload (relations may refer to each other in a cycle). */
export const MAX_NESTING_DEPTH = 5;

/** A payload item that passed validation, ids decoded, its nested children split off. */
export interface PreparedItem {
  data: ApiRecord;
  children: { relation: CompiledRelation; items: PreparedItem[] }[];
}

class PayloadTooLargeError extends HttpError {
  override name = 'PayloadTooLargeError';
  constructor(what: string) {
    super(413, `${what} holds more than ${MAX_BULK_ITEMS} items.`);
  }
}

function isPlainObject(value: unknown): value is ApiRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function join(prefix: string, key: string): string {
  return prefix === '' ? key : `${prefix}.${key}`;
}

/** Validate one item (and its nested children), collecting every problem with its payload path. */
function prepareItem(
  scope: RequestScope,
  resource: CompiledResource,
  value: unknown,
  prefix: string,
  validator: PayloadValidator,
  errors: InvalidParam[],
  depth = 0,
): PreparedItem {
  if (!isPlainObject(value)) {
    errors.push({ name: prefix || '(body)', reason: 'must be an object' });
    return { data: {}, children: [] };
  }
  const data: ApiRecord = { ...value };
  const children: PreparedItem['children'] = [];
  for (const relationName of resource.nestedWritable) {
    if (!(relationName in data)) continue;
    const raw = data[relationName];
    delete data[relationName];
    const path = join(prefix, relationName);
    if (!Array.isArray(raw)) {
      errors.push({ name: path, reason: 'must be an array of objects' });
      continue;
    }
    if (raw.length > MAX_BULK_ITEMS) throw new PayloadTooLargeError(`"${path}"`);
    if (depth >= MAX_NESTING_DEPTH) {
      errors.push({ name: path, reason: `nests deeper than ${MAX_NESTING_DEPTH} levels` });
      continue;
    }
    const relation = resource.relations.get(relationName)!;
    const target = relation.target.resource!;
    // Creating children is a create on their resource: its requiredAuth and abilities apply too.
    authorize(target, 'post', scope.request);
    children.push({
      relation,
      items: raw.map((child, index) =>
        prepareItem(scope, target, child, `${path}[${index}]`, relation.nestedValidator!, errors, depth + 1),
      ),
    });
  }
  const invalid = validator.errors(data, prefix);
  errors.push(...invalid);
  for (const field of resource.obfuscated) {
    if (!validator.properties.has(field) || !(field in data) || data[field] === null) continue;
    if (invalid.some((error) => error.name === join(prefix, field))) continue;
    const decoded = scope.codec.decode(data[field]);
    if (decoded === null) errors.push({ name: join(prefix, field), reason: 'is not a valid id' });
    else data[field] = decoded;
  }
  return { data, children };
}

function throwIfInvalid(errors: InvalidParam[]): void {
  if (errors.length === 0) return;
  throw new ValidationError(
    Object.fromEntries(errors.map((error) => [error.name, error.reason])),
    'The payload is not valid.',
    { invalidParams: errors },
  );
}

/** The relations a prepared item wrote, as derive nodes, so its response embeds them. */
function writtenRelations(items: readonly PreparedItem[]): DeriveNode[] {
  const nodes = new Map<string, DeriveNode>();
  for (const item of items) {
    for (const group of item.children) {
      const existing = nodes.get(group.relation.name);
      const children = writtenRelations(group.items);
      if (!existing) nodes.set(group.relation.name, { relation: group.relation, children });
    }
  }
  return [...nodes.values()];
}

interface SavepointApi {
  savepoint(name: string): { execute(): Promise<unknown> };
  releaseSavepoint(name: string): { execute(): Promise<unknown> };
}

/**
 * Run `work` in one transaction; any error rolls all of it back. Constraint violations become
 * 409/422, the rest is rethrown for the error handler (HttpErrors keep their status).
 */
async function inTransaction<T>(scope: RequestScope, work: (trx: AnyDb) => Promise<T>): Promise<T> {
  const trx = await scope.db.startTransaction().execute();
  try {
    const result = await work(trx);
    await trx.commit().execute();
    return result;
  } catch (error) {
    await trx
      .rollback()
      .execute()
      .catch((rollbackError: unknown) => {
        scope.request.log.error({ err: rollbackError }, 'rollback failed');
      });
    throw constraintError(error);
  }
}

function stamp(scope: RequestScope, values: ApiRecord, columns: readonly string[]): void {
  if (columns.length === 0) return;
  const now = scope.request.server.citadel.clock.now().toISOString();
  for (const column of columns) values[column] = now;
}

function pickWritable(resource: CompiledResource, data: ApiRecord): ApiRecord {
  const values: ApiRecord = {};
  // Only configured columns reach SQL, whatever a hook returned.
  for (const key in data) if (resource.writable.has(key) && data[key] !== undefined) values[key] = data[key];
  return values;
}

async function insertRow(trx: AnyDb, resource: CompiledResource, values: ApiRecord): Promise<unknown> {
  if (trx.getExecutor().adapter.supportsReturning) {
    const row = (await trx
      .insertInto(resource.table)
      .values(values)
      .returning(resource.primaryKey)
      .executeTakeFirstOrThrow()) as ApiRecord;
    return row[resource.primaryKey];
  }
  // MySQL/MariaDB have no RETURNING: the driver reports the generated id.
  const result = await trx.insertInto(resource.table).values(values).executeTakeFirstOrThrow();
  return Number(result.insertId);
}

async function readRow(trx: AnyDb, resource: CompiledResource, id: unknown): Promise<ApiRecord> {
  const row = (await trx
    .selectFrom(resource.table)
    .select(resource.select)
    .where(`${resource.table}.${resource.primaryKey}`, '=', id)
    .executeTakeFirst()) as ApiRecord | undefined;
  if (!row) throw new Error(`${resource.name}: saved row not found`);
  return row;
}

async function createItem(
  scope: RequestScope,
  resource: CompiledResource,
  item: PreparedItem,
  trx: AnyDb,
  savepoint: string,
): Promise<ApiRecord> {
  const savepoints = trx as unknown as SavepointApi;
  await savepoints.savepoint(savepoint).execute();
  const context = hookContext(scope, resource, trx);
  const data = await beforeSave(resource, item.data, context);
  const values = pickWritable(resource, data);
  stamp(scope, values, resource.createdStamps);
  const id = await insertRow(trx, resource, values);
  const row = await readRow(trx, resource, id);
  for (const [groupIndex, group] of item.children.entries()) {
    const created: ApiRecord[] = [];
    for (const [index, child] of group.items.entries()) {
      child.data[group.relation.foreignKey] = id;
      created.push(
        await createItem(
          scope,
          group.relation.target.resource!,
          child,
          trx,
          `${savepoint}_${groupIndex}_${index}`,
        ),
      );
    }
    row[group.relation.name] = created;
  }
  const record = await afterSave(resource, row, context);
  await savepoints.releaseSavepoint(savepoint).execute();
  return record;
}

/** POST: one object or a bulk array, all or nothing. */
export async function createRecords(
  scope: RequestScope,
  resource: CompiledResource,
  validator: PayloadValidator,
  body: unknown,
): Promise<ApiRecord | ApiRecord[]> {
  const bulk = Array.isArray(body);
  const values: unknown[] = bulk ? body : [body];
  if (values.length > MAX_BULK_ITEMS) throw new PayloadTooLargeError('The array');
  const errors: InvalidParam[] = [];
  if (bulk && values.length === 0) errors.push({ name: '(body)', reason: 'must hold at least one item' });
  const items = values.map((value, index) =>
    prepareItem(scope, resource, value, bulk ? `[${index}]` : '', validator, errors),
  );
  throwIfInvalid(errors);

  const rows = await inTransaction(scope, async (trx) => {
    const saved: ApiRecord[] = [];
    for (const [index, item] of items.entries())
      saved.push(await createItem(scope, resource, item, trx, `item_${index}`));
    return saved;
  });
  const formatted = rows.map((row, index) =>
    formatRecord(resource, row, writtenRelations([items[index]!]), scope.codec),
  );
  return bulk ? formatted : formatted[0]!;
}

async function assertInScope(
  scope: RequestScope,
  resource: CompiledResource,
  id: number | string,
  trx: AnyDb,
) {
  const found = await (
    await scopedQuery(scope, resource, trx)
  )
    .select(`${resource.table}.${resource.primaryKey}`)
    .where(`${resource.table}.${resource.primaryKey}`, '=', id)
    .executeTakeFirst();
  if (!found) throw new NotFoundError(`No ${resource.name} record has this id.`);
}

/** PUT / PATCH of one record the caller can see (beforeQuery scopes the lookup). */
export async function updateRecord(
  scope: RequestScope,
  resource: CompiledResource,
  validator: PayloadValidator,
  id: number | string,
  body: unknown,
): Promise<ApiRecord> {
  const errors: InvalidParam[] = [];
  const item = prepareItem(scope, resource, body, '', validator, errors);
  throwIfInvalid(errors);
  const row = await inTransaction(scope, async (trx) => {
    await assertInScope(scope, resource, id, trx);
    const context = hookContext(scope, resource, trx);
    const data = await beforeSave(resource, item.data, context);
    const values = pickWritable(resource, data);
    if (Object.keys(values).length > 0) {
      stamp(scope, values, resource.updatedStamps);
      await trx.updateTable(resource.table).set(values).where(resource.primaryKey, '=', id).execute();
    }
    const saved = await readRow(trx, resource, id);
    return afterSave(resource, saved, context);
  });
  return formatRecord(resource, row, [], scope.codec);
}

/** DELETE of one record the caller can see. */
export async function deleteRecord(
  scope: RequestScope,
  resource: CompiledResource,
  id: number | string,
): Promise<void> {
  await inTransaction(scope, async (trx) => {
    await assertInScope(scope, resource, id, trx);
    await trx.deleteFrom(resource.table).where(resource.primaryKey, '=', id).execute();
  });
}
