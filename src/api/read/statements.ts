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
 * The part of a statement's key that says whose scope it is, when the scoped query is the same for
 * every request it names: '' for a resource without a beforeQuery hook, `anonymous <version>
 * <verb>` for an anonymous caller of a resource whose hook reads only the caller
 * (`beforeQueryReads: 'caller'`). Undefined when the scoped query is built per request (a hook
 * that may read anything, a signed-in caller of such a resource, a tenant-scoped resource).
 */
export function sharedScopeKey(scope: RequestScope, resource: CompiledResource): string | undefined {
  if (resource.tenant !== null) return undefined;
  if (!resource.hooks.beforeQuery) return '';
  if (resource.config.beforeQueryReads !== 'caller') return undefined;
  if (scope.user !== null || scope.token !== null) return undefined;
  return `anonymous ${scope.version} ${scope.verb}`;
}

/** A statement compiled for `db` before (transactions share their database's adapter and plugins). */
export function storedStatement(
  resource: CompiledResource,
  db: AnyDb,
  key: string,
): { compiled: CompiledQuery | null } | undefined {
  const executor = db.getExecutor();
  const stored = statements.get(resource)?.get(key);
  return stored && stored.adapter === executor.adapter && stored.plugins === executor.plugins
    ? stored
    : undefined;
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
  let kept = statements.get(resource);
  if (!kept) statements.set(resource, (kept = new Map()));
  if (kept.size >= MAX_STATEMENTS_PER_RESOURCE && !kept.has(key)) return verdict;
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
