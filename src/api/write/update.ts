import { NotFoundError, ValidationError } from '../../core/errors.ts';
import { authorize } from '../request/authorize.ts';
import type { CompiledRelation, CompiledResource } from '../resource/compile.ts';
import { keyValue } from '../resource/column-types.ts';
import { afterSave, beforeSave, hookContext, type AnyDb, type RequestScope } from '../request/context.ts';
import { checkIfMatch, etagOf, hasIfMatch, lockedRow } from './etag.ts';
import { isLive, noteChange } from '../live/outbox.ts';
import { formatRecord } from '../read/format.ts';
import type { DeriveNode } from '../request/query.ts';
import { loadRelations, scopedQuery } from '../read/read.ts';
import { authorizeDerive } from '../request/plan.ts';
import type { ApiRecord, Verb } from '../resource/types.ts';
import type { InvalidParam, PayloadValidator } from '../resource/validation.ts';
import {
  assertInScope,
  CreateRun,
  inTransaction,
  isPlainObject,
  join,
  MAX_BULK_ITEMS,
  PayloadTooLargeError,
  prepareItem,
  throwIfInvalid,
} from './write.ts';
import { createLevel, pickWritable, stampColumns, type PreparedItem } from './write-set.ts';
import { readRow } from './write-sql.ts';

/**
 * PUT and PATCH of one record, with its children. A relation array in the
 * payload lists children: an item with the child's key updates it (PATCH semantics, the child's
 * own `patch` validator), an item without one creates it (the child's `post` validator), and
 * `{key, "_delete": true}` deletes it. PATCH leaves children not listed alone; PUT deletes them.
 * One transaction, each child in a savepoint; each child's own rules apply (validator, requiredAuth,
 * abilities, beforeQuery scope for the verb, beforeSave/afterSave).
 */

type ChildChange =
  | { kind: 'create'; path: string; item: PreparedItem }
  | { kind: 'update'; path: string; id: unknown; item: PreparedItem }
  | { kind: 'delete'; path: string; id: unknown };

interface ChildGroup {
  relation: CompiledRelation;
  path: string;
  changes: ChildChange[];
}

/** A child key as stored: decoded when obfuscated, else an integer or a string; null when invalid. */
function childKey(scope: RequestScope, target: CompiledResource, value: unknown): unknown {
  if (target.pkObfuscated) return scope.codecs.of(target.idSpaces.get(target.primaryKey)!).decode(value);
  return keyValue(target.columnTypes.get(target.primaryKey), value);
}

function prepareChildren(
  scope: RequestScope,
  relation: CompiledRelation,
  raw: unknown,
  path: string,
  errors: InvalidParam[],
): ChildGroup | null {
  if (!Array.isArray(raw)) {
    errors.push({ name: path, reason: 'must be an array of objects' });
    return null;
  }
  if (raw.length > MAX_BULK_ITEMS) throw new PayloadTooLargeError(`"${path}"`);
  const target = relation.target.resource!;
  const key = target.primaryKey;
  const changes: ChildChange[] = [];
  const seen = new Set<string>();
  raw.forEach((value, index) => {
    const itemPath = `${path}[${index}]`;
    if (!isPlainObject(value)) {
      errors.push({ name: itemPath, reason: 'must be an object' });
      return;
    }
    if (!(key in value)) {
      authorize(target, 'post', scope.request);
      const item = prepareItem(
        scope,
        target,
        value,
        itemPath,
        relation.nestedValidator!,
        errors,
        1,
        relation.foreignKey,
      );
      changes.push({ kind: 'create', path: itemPath, item });
      return;
    }
    const id = childKey(scope, target, value[key]);
    if (id === null) {
      errors.push({ name: join(itemPath, key), reason: 'is not a valid id' });
      return;
    }
    if (seen.has(String(id))) {
      errors.push({ name: join(itemPath, key), reason: 'is listed twice' });
      return;
    }
    seen.add(String(id));
    if ('_delete' in value) {
      const extra = Object.keys(value).filter((name) => name !== key && name !== '_delete');
      if (value._delete !== true) errors.push({ name: join(itemPath, '_delete'), reason: 'must be true' });
      for (const name of extra)
        errors.push({ name: join(itemPath, name), reason: 'a deletion holds only the key and "_delete"' });
      if (!target.exposed.has('delete'))
        errors.push({ name: itemPath, reason: `${target.name} records cannot be deleted` });
      else authorize(target, 'delete', scope.request);
      changes.push({ kind: 'delete', path: itemPath, id });
      return;
    }
    const validator = target.exposed.has('patch') ? target.validators.patch : undefined;
    if (!validator) {
      errors.push({ name: itemPath, reason: `${target.name} records cannot be updated` });
      return;
    }
    authorize(target, 'patch', scope.request);
    const fields: ApiRecord = { ...value };
    delete fields[key];
    // A child stays with its parent: the foreign key is not a field of the update.
    const item = prepareItem(
      scope,
      target,
      fields,
      itemPath,
      validator.without([relation.foreignKey]),
      errors,
      1,
      relation.foreignKey,
      false,
    );
    changes.push({ kind: 'update', path: itemPath, id, item });
  });
  return { relation, path, changes };
}

function notAChild(path: string, key: string, parent: string): never {
  const name = join(path, key);
  const reason = `is not a child of this ${parent} record that you may change`;
  throw new ValidationError({ [name]: reason }, 'The payload is not valid.', {
    invalidParams: [{ name, reason }],
  });
}

/** Whether the caller's scope for `verb` on the child's resource reaches this child. */
async function inChildScope(
  scope: RequestScope,
  target: CompiledResource,
  verb: Verb,
  id: unknown,
  trx: AnyDb,
) {
  const childScope: RequestScope = { ...scope, verb, db: trx };
  const found = await (
    await scopedQuery(childScope, target, trx)
  )
    .select(`${target.table}.${target.primaryKey}`)
    .where(`${target.table}.${target.primaryKey}`, '=', id)
    .executeTakeFirst();
  return found !== undefined;
}

async function updateChild(
  scope: RequestScope,
  target: CompiledResource,
  id: unknown,
  item: PreparedItem,
  trx: AnyDb,
  now: string,
) {
  const context = hookContext({ ...scope, verb: 'patch' }, target, trx);
  const data = await beforeSave(target, item.data, context);
  const { dialect } = scope.request.server;
  const values = pickWritable(dialect, target, data);
  const before = isLive(target) ? await lockedRow(trx, target, id, dialect) : undefined;
  if (Object.keys(values).length > 0) {
    stampColumns(values, target.updatedStamps, now);
    await trx.updateTable(target.table).set(values).where(target.primaryKey, '=', id).execute();
  }
  const saved = await readRow(trx, target, id);
  if (Object.keys(values).length > 0) noteChange(trx, target, 'updated', before, saved);
  await afterSave(target, saved, context);
}

async function deleteChild(
  scope: RequestScope,
  target: CompiledResource,
  id: unknown,
  path: string,
  parent: string,
  trx: AnyDb,
) {
  if (!(await inChildScope(scope, target, 'delete', id, trx))) notAChild(path, target.primaryKey, parent);
  const before = isLive(target) ? await lockedRow(trx, target, id, scope.request.server.dialect) : undefined;
  await trx.deleteFrom(target.table).where(target.primaryKey, '=', id).execute();
  noteChange(trx, target, 'deleted', before, null);
}

async function writeChildren(
  scope: RequestScope,
  resource: CompiledResource,
  parentId: unknown,
  group: ChildGroup,
  replace: boolean,
  run: CreateRun,
  trx: AnyDb,
) {
  const relation = group.relation;
  const target = relation.target.resource!;
  const existing = await trx
    .selectFrom(target.table)
    .select(`${target.table}.${target.primaryKey} as key`)
    .where(`${target.table}.${relation.foreignKey}`, '=', parentId)
    .execute();
  const children = new Set(existing.map((row) => String((row as { key: unknown }).key)));
  const changes = group.changes;
  // In payload order; any failure rolls the whole request back (one transaction).
  for (const change of changes) {
    if (change.kind === 'create') {
      change.item.data[relation.foreignKey] = parentId;
      await createLevel(run, target, [change.item]);
      continue;
    }
    if (!children.has(String(change.id))) notAChild(change.path, target.primaryKey, resource.name);
    if (change.kind === 'delete') {
      await deleteChild(scope, target, change.id, change.path, resource.name, trx);
      continue;
    }
    if (!(await inChildScope(scope, target, 'patch', change.id, trx)))
      notAChild(change.path, target.primaryKey, resource.name);
    await updateChild(scope, target, change.id, change.item, trx, run.now);
  }
  if (!replace) return;
  // PUT: the array is the whole set; the children it does not list go.
  const listed = new Set(changes.filter((c) => c.kind !== 'create').map((c) => String(c.id)));
  const gone = existing.map((row) => (row as { key: unknown }).key).filter((key) => !listed.has(String(key)));
  if (gone.length > 0) authorize(target, 'delete', scope.request);
  for (const key of gone) await deleteChild(scope, target, key, group.path, resource.name, trx);
}

export interface UpdateResult {
  record: ApiRecord;
  etag: string;
}

/** PUT / PATCH of one record the caller can see (beforeQuery scopes the lookup), with its children. */
export async function updateRecord(
  scope: RequestScope,
  resource: CompiledResource,
  validator: PayloadValidator,
  id: number | string,
  body: unknown,
): Promise<UpdateResult> {
  const errors: InvalidParam[] = [];
  const groups: ChildGroup[] = [];
  let fields = body;
  if (isPlainObject(body)) {
    fields = { ...body };
    for (const name of resource.nestedWritable) {
      if (!Object.hasOwn(body, name)) continue;
      delete (fields as ApiRecord)[name];
      const group = prepareChildren(scope, resource.relations.get(name)!, body[name], name, errors);
      if (group) groups.push(group);
    }
  }
  const item = prepareItem(scope, resource, fields, '', validator, errors, 0, null, false);
  throwIfInvalid(errors);
  const { secrets, dialect } = scope.request.server;
  const result = await inTransaction(scope, async (trx) => {
    await assertInScope(scope, resource, id, trx);
    // With If-Match, the row is locked and compared before anything is written.
    if (hasIfMatch(scope.request)) {
      const current = await lockedRow(trx, resource, id, dialect);
      if (!current) throw new NotFoundError(`No ${resource.name} record has this id.`);
      checkIfMatch(scope.request, resource, etagOf(secrets, resource, current));
    }
    const context = hookContext(scope, resource, trx);
    const data = await beforeSave(resource, item.data, context);
    const values = pickWritable(scope.request.server.dialect, resource, data);
    const run = new CreateRun({ ...scope, verb: 'post' }, trx);
    // Changing children changes the record: its `updated` stamps move too.
    if (Object.keys(values).length > 0 || groups.length > 0)
      stampColumns(values, resource.updatedStamps, run.now);
    const before = isLive(resource) ? await lockedRow(trx, resource, id, dialect) : undefined;
    if (Object.keys(values).length > 0) {
      await trx.updateTable(resource.table).set(values).where(resource.primaryKey, '=', id).execute();
      if (before) noteChange(trx, resource, 'updated', before, await readRow(trx, resource, id));
    }
    for (const group of groups)
      await writeChildren(scope, resource, id, group, scope.verb === 'put', run, trx);
    const saved = await readRow(trx, resource, id);
    const etag = etagOf(secrets, resource, saved);
    const derive: DeriveNode[] = groups.map((group) => ({ relation: group.relation, children: [] }));
    // The response embeds each relation written, as the caller may now read it.
    authorizeDerive(scope, derive);
    const [row] = await loadRelations({ ...scope, verb: 'get', db: trx }, resource, [saved], derive, trx);
    return { row: await afterSave(resource, row!, context), etag, derive };
  });
  return { record: formatRecord(resource, result.row, result.derive, scope.codecs), etag: result.etag };
}
