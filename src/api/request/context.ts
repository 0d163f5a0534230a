import type { FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { PublicUser } from '../../auth/core/users.ts';
import type { TokenRecord } from '../../auth/core/personal-access-tokens.ts';
import type { ActiveTenant } from '../../auth/core/tenancy.ts';
import type { Caller } from '../../http/security/caller.ts';
import { callContextOf, type CallContext } from '../../http/request/call-context.ts';
import { ForbiddenError } from '../../core/errors.ts';
import type { CompiledResource } from '../resource/compile.ts';
import type { IdCodecs } from '../resource/sqids.ts';
import type { ApiRecord, HookContext, ResourceQuery, Verb } from '../resource/types.ts';
import { andThen, type MaybePromise } from './maybe-promise.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- application tables are not in the core's typed schema
export type AnyDb = Kysely<any>;

/** What one API request carries through the engine. */
export interface RequestScope {
  version: string;
  verb: Verb;
  request: FastifyRequest;
  user: PublicUser | null;
  token: TokenRecord | null;
  /** Sqids codecs, one per id space (`resource.idSpaces`). */
  codecs: IdCodecs;
  /** The database, or the open transaction on writes. */
  db: AnyDb;
  /** The active organization (tenant-scoped resources, or any when a hook may read it), or null. */
  tenant: ActiveTenant | null;
  /** The caller as the hooks see it (null for a token without the verb's ability, as `user`). */
  caller: Caller | null;
  /**
   * What every hook of this request receives as `ctx.request`: built once by the HTTP adapter when
   * a hook can run (the resource's or a related resource's), null otherwise.
   */
  call: CallContext | null;
}

/** The hooks' view of the request, as the HTTP adapter built it (or now, when it did not). */
export function callContext(scope: RequestScope): CallContext {
  if (scope.call) return scope.call;
  const tenant = scope.tenant;
  return callContextOf(
    scope.request,
    scope.caller,
    tenant && { id: tenant.organizationId, role: tenant.role, permissions: tenant.permissions },
  );
}

/** The active organization's id for a tenant-scoped resource; never reached without one (authorize). */
export function tenantIdOf(scope: RequestScope): number {
  if (!scope.tenant) throw new ForbiddenError('No active organization.');
  return scope.tenant.organizationId;
}

/**
 * The engine's tenant rule, before any hook: a tenant-scoped resource's rows are those of the
 * active organization, on every read path (lists, counts, single reads, derive, search, cursors,
 * the lookups of writes). Not a hook: the application cannot leave it out.
 */
export function tenantScoped(
  scope: RequestScope,
  resource: CompiledResource,
  query: ResourceQuery,
): ResourceQuery {
  if (resource.tenant === null) return query;
  return query.where(`${resource.table}.${resource.tenant}`, '=', tenantIdOf(scope));
}

export function hookContext(
  scope: RequestScope,
  resource: CompiledResource,
  db: AnyDb = scope.db,
): HookContext {
  return {
    version: scope.version,
    resource: resource.name,
    verb: scope.verb,
    user: scope.user,
    token: scope.token,
    request: callContext(scope),
    db: db as HookContext['db'],
  };
}

// A hook that returns nothing (the spec's hook table says beforeQuery returns nothing) keeps the
// value it was given, including any in-place changes to records. A hook that answers at once is
// not waited for: no promise unless the hook returns one.

function orGiven<T>(answer: MaybePromise<T | void | undefined>, given: T): MaybePromise<T> {
  return andThen(answer, (value) => value ?? given);
}

export function beforeQuery(
  scope: RequestScope,
  resource: CompiledResource,
  query: ResourceQuery,
  db?: AnyDb,
): MaybePromise<ResourceQuery> {
  const scoped = tenantScoped(scope, resource, query);
  const hook = resource.hooks.beforeQuery;
  return hook ? orGiven(hook(scoped, hookContext(scope, resource, db)), scoped) : scoped;
}

export function afterQuery(
  scope: RequestScope,
  resource: CompiledResource,
  rows: ApiRecord[],
  db?: AnyDb,
): MaybePromise<ApiRecord[]> {
  const hook = resource.hooks.afterQuery;
  return hook ? orGiven(hook(rows, hookContext(scope, resource, db)), rows) : rows;
}

export async function beforeSave(
  resource: CompiledResource,
  data: ApiRecord,
  ctx: HookContext,
): Promise<ApiRecord> {
  const hook = resource.hooks.beforeSave;
  if (!hook) return data;
  const copy = { ...data };
  return (await hook(copy, ctx)) ?? copy;
}

export async function afterSave(
  resource: CompiledResource,
  record: ApiRecord,
  ctx: HookContext,
): Promise<ApiRecord> {
  const hook = resource.hooks.afterSave;
  return hook ? ((await hook(record, ctx)) ?? record) : record;
}
