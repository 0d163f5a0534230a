import type { SecretBox } from '../../core/crypto.ts';
import type { CompiledResource } from '../resource/compile.ts';
import { authorize } from './authorize.ts';
import type { RequestScope } from './context.ts';
import { decodeCursor } from './cursor.ts';
import type { DeriveNode, ListPlan } from './query.ts';

// A read is checked whole before its first statement, as PostgREST does: parsing bounds the derive
// depth and the page; checkListPlan decodes the cursor against this query and authorizes every
// embedded resource. Executing the plan then only runs statements.

/**
 * Embedding a tenant-scoped resource is reading it: the role's (and token's) read permission
 * applies at every level of the tree, whether or not rows turn up there.
 */
export function authorizeDerive(scope: RequestScope, derive: readonly DeriveNode[]): void {
  if (derive.length === 0) return;
  const stack = [...derive];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const target = node.relation.target.resource;
    if (!target) continue;
    if (target.tenant !== null) authorize(target, 'get', scope.request);
    stack.push(...node.children);
  }
}

/** The list plan checked for this caller: 400 for a cursor of another query, 401/403 for a derive. */
export function checkListPlan(
  scope: RequestScope,
  secrets: SecretBox,
  resource: CompiledResource,
  plan: ListPlan,
): void {
  if (plan.cursor !== null) plan.position = decodeCursor(secrets, resource, plan.cursorQuery, plan.cursor);
  authorizeDerive(scope, plan.derive);
}
