import { createQueryId, type CompiledQuery, type KyselyPlugin } from 'kysely';
import type { CompiledResource } from '../resource/compile.ts';
import type { AnyDb, RequestScope } from '../request/context.ts';

/**
 * Reads compiled once and run many times: the single read by id and the plain list (page and
 * count). A statement is kept only where the scoped query (FROM plus beforeQuery) is the same for
 * every request it serves, and where each value that changes between requests is a slot: an
 * object that stands in the compiled parameters for the value given at run time.
 */

/** Stands for the id of a single read. */
export const ID_SLOT = Object.freeze({ idSlot: true });
/** Stand for a list page's LIMIT and OFFSET. */
export const LIMIT_SLOT = Object.freeze({ limitSlot: true });
export const OFFSET_SLOT = Object.freeze({ offsetSlot: true });

interface StoredStatement {
  adapter: unknown;
  plugins: readonly KyselyPlugin[];
  /** Null: this statement is built per request (its compiled form could not take the slots). */
  compiled: CompiledQuery | null;
}

/**
 * Statements kept per resource. Lists are keyed by sort and `fields`, which clients choose: past
 * this many, a new key is built per request instead of kept.
 */
export const MAX_STATEMENTS_PER_RESOURCE = 64;

const statements = new WeakMap<CompiledResource, Map<string, StoredStatement>>();

/**
 * Statements kept per resource and signed-in caller (their keys name the caller: see
 * `sharedScopeKey`), the most recently used first out of mind: a busy user's reads reuse theirs,
 * and a crowd of callers seen once cannot crowd out the shared statements.
 */
export const MAX_CALLER_STATEMENTS_PER_RESOURCE = 1024;

const callerStatements = new WeakMap<CompiledResource, Map<string, StoredStatement>>();

/** A key made with a signed-in caller's scope (`item caller …`, `list caller …`). */
const CALLER_KEY = /^\w+ caller /;

/** What a beforeQuery hook sees of a signed-in caller, as a key: every field but the token's last use. */
function callerKey(scope: RequestScope): string {
  const { user, token } = scope;
  const who = user ? `${user.id}\u0001${user.username}\u0001${user.email}\u0001${user.active}` : '';
  if (!token) return who;
  const abilities = token.abilities.join(' ');
  return `${who}\u0002${token.id}\u0001${token.name}\u0001${abilities}\u0001${token.created_at}\u0001${token.expires_at}\u0001${token.organization_id}`;
}

/**
 * The part of a statement's key that says whose scope it is, when the scoped query is the same for
 * every request it names: '' for a resource without a beforeQuery hook; for a resource whose hook
 * reads only the caller (`beforeQueryReads: 'caller'`), `anonymous <version> <verb>` for every
 * anonymous caller and `caller <version> <verb> <the user and token as the hook sees them>` for a
 * signed-in one. Undefined when the scoped query is built per request (a hook that may read
 * anything, a tenant-scoped resource).
 */
export function sharedScopeKey(scope: RequestScope, resource: CompiledResource): string | undefined {
  if (resource.tenant !== null) return undefined;
  if (!resource.hooks.beforeQuery) return '';
  if (resource.config.beforeQueryReads !== 'caller') return undefined;
  if (scope.user !== null || scope.token !== null)
    return `caller ${scope.version} ${scope.verb} ${callerKey(scope)}`;
  return `anonymous ${scope.version} ${scope.verb}`;
}

/** A statement compiled for `db` before (transactions share their database's adapter and plugins). */
export function storedStatement(
  resource: CompiledResource,
  db: AnyDb,
  key: string,
): { compiled: CompiledQuery | null } | undefined {
  const executor = db.getExecutor();
  const perCaller = CALLER_KEY.test(key);
  const kept = (perCaller ? callerStatements : statements).get(resource);
  const stored = kept?.get(key);
  if (!stored || stored.adapter !== executor.adapter || stored.plugins !== executor.plugins) return undefined;
  if (perCaller) {
    // Most recently used last: the Map's order is the eviction order.
    kept!.delete(key);
    kept!.set(key, stored);
  }
  return stored;
}

/**
 * Keep `compiled` under `key` if each slot is exactly one of its parameters; else keep the verdict
 * null (built per request from then on). Returns what is kept. Past MAX_STATEMENTS_PER_RESOURCE
 * keys nothing new is kept, and the statement still serves this request.
 */
export function storeStatement(
  resource: CompiledResource,
  db: AnyDb,
  key: string,
  compiled: CompiledQuery,
  slots: readonly object[],
): CompiledQuery | null {
  const usable = slots.every(
    (slot) => compiled.parameters.filter((parameter) => parameter === slot).length === 1,
  );
  const verdict = usable ? compiled : null;
  const perCaller = CALLER_KEY.test(key);
  const store = perCaller ? callerStatements : statements;
  let kept = store.get(resource);
  if (!kept) store.set(resource, (kept = new Map()));
  if (perCaller) {
    if (kept.size >= MAX_CALLER_STATEMENTS_PER_RESOURCE && !kept.has(key))
      kept.delete(kept.keys().next().value!);
  } else if (kept.size >= MAX_STATEMENTS_PER_RESOURCE && !kept.has(key)) return verdict;
  const executor = db.getExecutor();
  kept.set(key, { adapter: executor.adapter, plugins: executor.plugins, compiled: verdict });
  return verdict;
}

/** A kept statement with `slots[i]` filled by `values[i]`, under a fresh query id (plugins key their state by it). */
export function withSlots(
  compiled: CompiledQuery,
  slots: readonly object[],
  values: readonly unknown[],
): CompiledQuery {
  return {
    ...compiled,
    parameters: compiled.parameters.map((parameter) => {
      const at = slots.indexOf(parameter as object);
      return at < 0 ? parameter : values[at];
    }),
    queryId: createQueryId(),
  };
}
