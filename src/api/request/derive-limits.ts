import { BadRequestError } from '../../core/errors.ts';
import type { CompiledResource } from '../resource/compile.ts';
import type { ApiRecord } from '../resource/types.ts';

/** The shape of a parsed `derive` tree these checks walk (query.ts's DeriveNode is one). */
interface DeriveNode {
  relation: { name: string; type: 'hasMany' | 'belongsTo' };
  children: readonly DeriveNode[];
}

/** Levels of `derive` a resource allows unless its `maxDeriveDepth` says otherwise. */
export const DEFAULT_MAX_DERIVE_DEPTH = 3;
/**
 * Related rows one response may embed in all, counting every place a row appears: a parent shared
 * by many children is serialized once per child, so cycles (posts → comments → post) multiply.
 */
export const MAX_EMBEDDED_ROWS = 10_000;

export function maxDeriveDepth(resource: CompiledResource): number {
  return resource.config.maxDeriveDepth ?? DEFAULT_MAX_DERIVE_DEPTH;
}

/** Refuse a derive tree deeper than the resource allows (checked iteratively, no recursion). */
export function checkDeriveDepth(resource: CompiledResource, roots: readonly DeriveNode[]): void {
  const limit = maxDeriveDepth(resource);
  const stack = roots.map((node) => ({ node, depth: 1 }));
  while (stack.length > 0) {
    const { node, depth } = stack.pop()!;
    if (depth > limit) {
      const reason = `goes ${depth} levels deep; ${resource.name} allows at most ${limit}`;
      throw new BadRequestError(`The query parameter "derive" ${reason}.`, {
        invalidParams: [{ name: 'derive', reason }],
      });
    }
    for (const child of node.children) stack.push({ node: child, depth: depth + 1 });
  }
}

/**
 * Rows serialized under `rows` once their relations are embedded. Memoized per object, so a row
 * shared by many parents is weighed once; depth is bounded by `checkDeriveDepth`.
 */
function embeddedWeight(
  record: unknown,
  derive: readonly DeriveNode[],
  memo: WeakMap<object, number>,
): number {
  if (record === null || typeof record !== 'object') return 0;
  const known = memo.get(record);
  if (known !== undefined) return known;
  let weight = 0;
  for (const node of derive) {
    const value = (record as ApiRecord)[node.relation.name];
    const children = Array.isArray(value) ? value : value ? [value] : [];
    for (const child of children) weight += 1 + embeddedWeight(child, node.children, memo);
  }
  memo.set(record, weight);
  return weight;
}

/** 400 when the rows embedded under `rows` exceed MAX_EMBEDDED_ROWS (called at every level). */
export function checkEmbeddedRows(rows: readonly ApiRecord[], derive: readonly DeriveNode[]): void {
  if (derive.length === 0) return;
  const memo = new WeakMap<object, number>();
  let total = 0;
  for (const row of rows) {
    total += embeddedWeight(row, derive, memo);
    if (total > MAX_EMBEDDED_ROWS) {
      const reason = `would embed more than ${MAX_EMBEDDED_ROWS} related rows; derive fewer relations or lower limit`;
      throw new BadRequestError(`The query parameter "derive" ${reason}.`, {
        invalidParams: [{ name: 'derive', reason }],
      });
    }
  }
}

/** Rows one row can embed at most: a belongsTo one, a hasMany any number (Infinity). */
function embeddedPerRow(derive: readonly DeriveNode[]): number {
  let total = 0;
  for (const node of derive)
    total += node.relation.type === 'hasMany' ? Infinity : 1 + embeddedPerRow(node.children);
  return total;
}

/** Whether `rows` rows read with this derive tree may embed more than the budget (then count them once read). */
export function mustCountEmbedded(derive: readonly DeriveNode[], rows: number): boolean {
  return derive.length > 0 && rows * embeddedPerRow(derive) > MAX_EMBEDDED_ROWS;
}
