import type { UserRecord } from '../users.ts';
import type { Factor, PluginFactorView, ProofScope } from './types.ts';
import type { RequestContext } from '../request-context.ts';

/** The built-in factors' ids: the built-in pages draw these themselves. */
const BUILT_IN_IDS = new Set(['totp', 'passkey', 'recovery_code', 'password']);
const FACTOR_ID = /^[a-z][a-z0-9_]{0,31}$/;

/**
 * Every factor of the plugins (built-in first), split by where it is accepted. Ids are unique:
 * a proof names its factor by id.
 */
export class FactorRegistry {
  /** What the `two_factor` sign-in step accepts. */
  readonly secondFactors: readonly Factor[];
  /** What sudo accepts, in the order the sudo page shows them. */
  readonly sudoFactors: readonly Factor[];
  /** Factors that make the sign-in step pending by themselves (plugins' `isEnrolled`). */
  private readonly enrolling: readonly Factor[];

  constructor(factors: readonly Factor[]) {
    const ids = new Set<string>();
    for (const factor of factors) {
      if (!FACTOR_ID.test(factor.id)) throw new Error(`factor id "${factor.id}" must match ${FACTOR_ID}`);
      if (ids.has(factor.id)) throw new Error(`two factors have the id "${factor.id}"`);
      ids.add(factor.id);
    }
    const accepts = (factor: Factor, scope: ProofScope) => (factor.scopes ?? [scope]).includes(scope);
    this.secondFactors = factors.filter((f) => accepts(f, 'sign_in'));
    this.sudoFactors = factors.filter((f) => accepts(f, 'sudo'));
    this.enrolling = this.secondFactors.filter((f) => f.isEnrolled && !BUILT_IN_IDS.has(f.id));
  }

  /**
   * Whether a plugin factor this user set up asks for the sign-in step (the built-in TOTP and
   * passkeys are checked by `enrolledFactorIds`, in one statement).
   */
  async hasEnrolledPluginFactor(request: RequestContext, user: UserRecord): Promise<boolean> {
    for (const factor of this.enrolling) if (await factor.isEnrolled!(request, user)) return true;
    return false;
  }

  /** Labels and proof inputs of factors the built-in pages do not draw themselves. */
  pluginFactors(ids: readonly string[]): PluginFactorView[] {
    return [...this.secondFactors, ...this.sudoFactors]
      .filter((f, i, all) => all.indexOf(f) === i && !BUILT_IN_IDS.has(f.id) && ids.includes(f.id))
      .map((f) => ({ id: f.id, label: f.label, input: f.proofInput ?? { label: f.label } }));
  }
}

/** The factor of `list` with the id `id` (a value read from a request), if any. */
export function findFactor(list: readonly Factor[], id: unknown): Factor | undefined {
  return list.find((f) => f.id === id);
}

/** Whether this user can prove any factor of `list` now: stops at the first (a password needs no query). */
export async function hasAvailableFactor(
  request: RequestContext,
  user: UserRecord,
  list: readonly Factor[],
): Promise<boolean> {
  for (const factor of list) if (await factor.isAvailable(request, user)) return true;
  return false;
}

/** The factors of `list` this user can prove now. */
export async function availableFactors(
  request: RequestContext,
  user: UserRecord,
  list: readonly Factor[],
): Promise<Factor[]> {
  const out: Factor[] = [];
  for (const factor of list) if (await factor.isAvailable(request, user)) out.push(factor);
  return out;
}
