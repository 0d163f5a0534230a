import { AuthenticationRequiredError, HttpError, NotFoundError, ValidationError } from '../../core/errors.ts';
import type { CompiledRelation, CompiledResource } from '../resource/compile.ts';
import { authorize } from '../request/authorize.ts';
import { afterQuery, hookContext, tenantIdOf, type AnyDb, type RequestScope } from '../request/context.ts';
import { columnValueProblem, keyValue } from '../resource/column-types.ts';
import { constraintError } from './db-errors.ts';
import { callerIsGone } from '../../http/security/caller-gone.ts';
import { formatRecord } from '../read/format.ts';
import { etagOf, guardIfMatch, lockedRow } from './etag.ts';
import { hubOf } from '../live/hub.ts';
import { isLive, noteChange } from '../live/outbox.ts';
import type { DeriveNode } from '../request/query.ts';
import { scopedQuery } from '../read/read.ts';
import type { ApiRecord, HookContext } from '../resource/types.ts';
import type { InvalidParam, PayloadValidator } from '../resource/validation.ts';
import type { Dialect } from '../../db/url.ts';
import { retryOnDeadlock } from '../../db/retry.ts';
import { createLevel, type PreparedItem, type PreparedParent } from './write-set.ts';

export type { PreparedItem, PreparedParent } from './write-set.ts';

/** Most items one bulk array (or one nested relation) may hold. */
export const MAX_BULK_ITEMS = 1000;
/** Deepest nesting of children in one payload (relations may refer to each other in a cycle). */
export const MAX_NESTING_DEPTH = 5;

export class PayloadTooLargeError extends HttpError {
  override name = 'PayloadTooLargeError';
  constructor(what: string) {
    super(413, `${what} holds more than ${MAX_BULK_ITEMS} items.`);
  }
}

export function isPlainObject(value: unknown): value is ApiRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function join(prefix: string, key: string): string {
  return prefix === '' ? key : `${prefix}.${key}`;
}

const PARENT_RELATIONS = new WeakMap<CompiledResource, CompiledRelation[]>();

/** Allowed belongsTo relations to another resource: a payload may give their parent as an object. */
function parentRelations(resource: CompiledResource): CompiledRelation[] {
  let relations = PARENT_RELATIONS.get(resource);
  if (!relations) {
    relations = resource.allowed
      .map((name) => resource.relations.get(name)!)
      .filter((relation) => relation.type === 'belongsTo' && relation.target.resource !== null);
    PARENT_RELATIONS.set(resource, relations);
  }
  return relations;
}

/** The key of an existing parent as stored, or a reason it is not one. */
function parentKey(scope: RequestScope, target: CompiledResource, key: string, value: unknown): unknown {
  if (target.obfuscated.has(key))
    return scope.codecs.of(target.idSpaces.get(key)!).decode(value) ?? { reason: 'is not a valid id' };
  const type = target.columnTypes.get(key);
  // Out of the column's range: no such parent (422), never a database error.
  const stored = keyValue(type, value);
  if (stored !== null) return stored;
  if (type === 'integer' || type === 'bigint')
    return { reason: Number.isSafeInteger(value) ? 'is not a valid id' : 'must be an integer' };
  return { reason: 'must be a string or a number' };
}

/**
 * A belongsTo object: `{<key>}` alone refers to an existing parent, anything else is a parent to
 * create, validated like a POST to its own resource.
 */
function prepareParent(
  scope: RequestScope,
  relation: CompiledRelation,
  value: unknown,
  path: string,
  errors: InvalidParam[],
  depth: number,
): PreparedParent | null {
  const target = relation.target.resource!;
  const key = relation.targetKey;
  if (!isPlainObject(value)) {
    errors.push({ name: path, reason: `must be an object: {"${key}": ...} or a new record` });
    return null;
  }
  if (depth >= MAX_NESTING_DEPTH) {
    errors.push({ name: path, reason: `nests deeper than ${MAX_NESTING_DEPTH} levels` });
    return null;
  }
  if (key in value) {
    // Referring to a parent reads it: its read auth and ability apply, and its scope (checked in
    // the transaction) decides whether the caller may see it.
    authorize(target, 'get', scope.request);
    const extra = Object.keys(value).filter((name) => name !== key);
    for (const name of extra)
      errors.push({ name: join(path, name), reason: `a reference holds only "${key}"` });
    const stored = parentKey(scope, target, key, value[key]);
    if (typeof stored === 'object' && stored !== null) {
      errors.push({ name: join(path, key), reason: (stored as { reason: string }).reason });
      return null;
    }
    return extra.length > 0 ? null : { relation, path, existing: stored };
  }
  const validator = target.exposed.has('post') ? target.validators.post : undefined;
  if (!validator) {
    errors.push({ name: path, reason: `must refer to an existing record: {"${key}": ...}` });
    return null;
  }
  // Creating the parent is a create on its resource: its requiredAuth and abilities apply too.
  authorize(target, 'post', scope.request);
  return { relation, path, create: prepareItem(scope, target, value, path, validator, errors, depth + 1) };
}

/**
 * Validate one item (with its parents and nested children), collecting every problem with its
 * payload path. `fixedKey` is the foreign key a parent sets (nested children), never a payload's.
 */
export function prepareItem(
  scope: RequestScope,
  resource: CompiledResource,
  value: unknown,
  prefix: string,
  validator: PayloadValidator,
  errors: InvalidParam[],
  depth = 0,
  fixedKey: string | null = null,
  nested = true,
): PreparedItem {
  if (!isPlainObject(value)) {
    errors.push({ name: prefix || '(body)', reason: 'must be an object' });
    return { data: {}, parents: [], children: [] };
  }
  const data: ApiRecord = { ...value };
  const tenant = resource.tenant;
  if (tenant !== null && tenant !== fixedKey && Object.hasOwn(data, tenant)) {
    // The engine sets the tenant column: the active organization's id is accepted, nothing else.
    const given = data[tenant];
    delete data[tenant];
    const own = tenantIdOf(scope);
    if (given !== own)
      errors.push({
        name: join(prefix, tenant),
        reason: `must be your active organization (${own}) or left out: the engine sets it`,
      });
  }
  const parents: PreparedParent[] = [];
  const filled: string[] = [];
  // PUT and PATCH write one row: relation objects are unknown fields there, as the validator says.
  for (const relation of nested ? parentRelations(resource) : []) {
    if (!Object.hasOwn(data, relation.name) || relation.foreignKey === fixedKey) continue;
    const raw = data[relation.name];
    delete data[relation.name];
    filled.push(relation.foreignKey);
    if (Object.hasOwn(data, relation.foreignKey)) {
      errors.push({
        name: join(prefix, relation.foreignKey),
        reason: `give "${relation.foreignKey}" or "${relation.name}", not both`,
      });
      delete data[relation.foreignKey];
    }
    const parent = prepareParent(scope, relation, raw, join(prefix, relation.name), errors, depth);
    if (parent) parents.push(parent);
  }
  // The parent's key fills the foreign key: the validator must not ask for it.
  if (filled.length > 0) validator = validator.without(filled);

  const children: PreparedItem['children'] = [];
  for (const relationName of nested ? resource.nestedWritable : []) {
    if (!Object.hasOwn(data, relationName)) continue;
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
        prepareItem(
          scope,
          target,
          child,
          `${path}[${index}]`,
          relation.nestedValidator!,
          errors,
          depth + 1,
          relation.foreignKey,
        ),
      ),
    });
  }
  const invalid = validator.errors(data, prefix);
  errors.push(...invalid);
  errors.push(...typeErrors(resource, data, prefix, invalid));
  for (const field of resource.obfuscated) {
    if (!validator.properties.has(field) || !Object.hasOwn(data, field) || data[field] === null) continue;
    if (invalid.length > 0 && invalid.some((error) => error.name === join(prefix, field))) continue;
    const decoded = scope.codecs.of(resource.idSpaces.get(field)!).decode(data[field]);
    if (decoded === null) errors.push({ name: join(prefix, field), reason: 'is not a valid id' });
    else data[field] = decoded;
  }
  return { data, parents, children };
}

/**
 * Values the validator let through that do not fit their column's type (a bigint that is not a
 * string of digits, an impossible date, …): the engine's own check, whatever the validator says.
 */
function typeErrors(
  resource: CompiledResource,
  data: ApiRecord,
  prefix: string,
  invalid: readonly InvalidParam[],
): InvalidParam[] {
  const errors: InvalidParam[] = [];
  for (const key of Object.keys(data)) {
    const column = resource.config.columns[key];
    const value = data[key];
    if (!column || resource.obfuscated.has(key) || value === null || value === undefined) continue;
    const name = join(prefix, key);
    if (invalid.some((error) => error.name === name)) continue;
    const problem = columnValueProblem(column, value);
    if (problem) errors.push({ name, reason: problem });
  }
  return errors;
}

export function throwIfInvalid(errors: InvalidParam[]): void {
  if (errors.length === 0) return;
  throw new ValidationError(
    Object.fromEntries(errors.map((error) => [error.name, error.reason])),
    'The payload is not valid.',
    { invalidParams: errors },
  );
}

/** The relations a prepared item wrote or referred to, as derive nodes, so its response embeds them. */
function writtenRelations(item: PreparedItem): DeriveNode[] {
  const nodes: DeriveNode[] = [];
  for (const parent of item.parents) {
    const children = 'create' in parent ? writtenRelations(parent.create) : [];
    nodes.push({ relation: parent.relation, children });
  }
  for (const group of item.children) {
    // Children of one group may have written different relations: embed the union.
    const merged = new Map<string, DeriveNode>();
    for (const child of group.items)
      for (const node of writtenRelations(child))
        if (!merged.has(node.relation.name)) merged.set(node.relation.name, node);
    nodes.push({ relation: group.relation, children: [...merged.values()] });
  }
  return nodes;
}

/**
 * Run `work` in one transaction; any error rolls all of it back. Constraint violations become
 * 409/422, the rest is rethrown for the error handler (HttpErrors keep their status).
 */
export function inTransaction<T>(scope: RequestScope, work: (trx: AnyDb) => Promise<T>): Promise<T> {
  // A deadlock victim (a write racing, say, its author's deletion) was undone by the database: run again.
  return retryOnDeadlock(() => inOneTransaction(scope, work));
}

async function inOneTransaction<T>(scope: RequestScope, work: (trx: AnyDb) => Promise<T>): Promise<T> {
  const trx = await scope.db.startTransaction().execute();
  const { db, clock } = scope.request.server;
  const live = hubOf(db);
  try {
    const result = await work(trx);
    // The outbox rows of live resources commit with the change (and only with it).
    const written = live ? await live.beforeCommit(trx, clock.now().toISOString()) : null;
    await trx.commit().execute();
    if (written) live!.afterCommit(written);
    return result;
  } catch (error) {
    await trx
      .rollback()
      .execute()
      .catch((rollbackError: unknown) => {
        scope.request.log.error({ err: rollbackError }, 'rollback failed');
      });
    // The caller's own account was deleted meanwhile (its user id fails the foreign key): 401.
    if (await callerIsGone(scope.request, error).catch(() => false)) throw new AuthenticationRequiredError();
    throw constraintError(error);
  }
}

/** What one create request shares across its items: the transaction, one clock reading, hook contexts. */
export class CreateRun {
  private readonly contexts = new Map<CompiledResource, HookContext>();
  readonly now: string;
  readonly dialect: Dialect;

  constructor(
    readonly scope: RequestScope,
    readonly trx: AnyDb,
  ) {
    const { clock, dialect } = scope.request.server;
    this.now = clock.now().toISOString();
    this.dialect = dialect;
  }

  tenantId(): number {
    return tenantIdOf(this.scope);
  }

  context(resource: CompiledResource): HookContext {
    let context = this.contexts.get(resource);
    if (!context) this.contexts.set(resource, (context = hookContext(this.scope, resource, this.trx)));
    return context;
  }

  /** An existing parent as the caller may see it (its read scope), or a 422 on its path. */
  async existingParent(relation: CompiledRelation, path: string, key: unknown): Promise<ApiRecord> {
    const target = relation.target.resource!;
    const readScope: RequestScope = { ...this.scope, verb: 'get', db: this.trx };
    const row = (await (
      await scopedQuery(readScope, target, this.trx)
    )
      .select(target.select)
      .where(`${target.table}.${relation.targetKey}`, '=', key)
      .executeTakeFirst()) as ApiRecord | undefined;
    if (!row) {
      // Missing and invisible look the same: no probing for other callers' records.
      const name = join(path, relation.targetKey);
      const reason = `does not refer to a ${target.name} record you can see`;
      throw new ValidationError({ [name]: reason }, 'The payload is not valid.', {
        invalidParams: [{ name, reason }],
      });
    }
    const [record] = await afterQuery(readScope, target, [row], this.trx);
    return record ?? row;
  }
}

/** POST: one object or a bulk array, all or nothing. */
export async function createRecords(
  scope: RequestScope,
  resource: CompiledResource,
  validator: PayloadValidator,
  body: unknown,
  /** Filled with the created record's ETag (a single create: a bulk answer carries no ETag). */
  etags: string[] = [],
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

  // Set-based: one multi-row INSERT per level (write-set.ts); any failure rolls back the whole request.
  const rows = await inTransaction(scope, async (trx) =>
    (await createLevel(new CreateRun(scope, trx), resource, items)).map((created, index) => {
      // An HMAC per record: only where an answer sends it.
      if (!bulk) etags[index] = etagOf(scope.request.server.secrets, resource, created.row);
      return created.record;
    }),
  );
  const formatted = rows.map((row, index) =>
    formatRecord(resource, row, writtenRelations(items[index]!), scope.codecs),
  );
  return bulk ? formatted : formatted[0]!;
}

export async function assertInScope(
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

/** DELETE of one record the caller can see. */
export async function deleteRecord(
  scope: RequestScope,
  resource: CompiledResource,
  id: number | string,
): Promise<void> {
  await inTransaction(scope, async (trx) => {
    await assertInScope(scope, resource, id, trx);
    await guardIfMatch(scope.request, resource, id, trx);
    const before = isLive(resource)
      ? await lockedRow(trx, resource, id, scope.request.server.dialect)
      : undefined;
    await trx.deleteFrom(resource.table).where(resource.primaryKey, '=', id).execute();
    noteChange(trx, resource, 'deleted', before, null);
  });
}
