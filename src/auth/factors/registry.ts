import type { FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import type { CitadelServices } from '../../http/fastify-types.ts';
import type { UserRecord } from '../core/users.ts';
import type { EnrollableFactor, Factor, ProofScope } from './types.ts';
import type { PluginFactorView } from './pages.ts';
import { signInFactsFor, type SignInFact } from '../core/sign-in-facts.ts';
import { totpFactor } from './totp.ts';
import { passkeyFactor } from './passkey.ts';
import { recoveryCodeFactor } from './recovery.ts';
import { passwordFactor } from './password.ts';

export const enrollableFactors: readonly EnrollableFactor[] = [totpFactor, passkeyFactor];
/** The factors plugin's factors, in the order the sudo page shows them (password is sudo-only). */
export const builtInFactors: readonly Factor[] = [
  passwordFactor,
  totpFactor,
  passkeyFactor,
  recoveryCodeFactor,
];
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
  async hasEnrolledPluginFactor(request: FastifyRequest, user: UserRecord): Promise<boolean> {
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

export function findFactor(list: readonly Factor[], id: unknown): Factor | undefined {
  return list.find((f) => f.id === id);
}

/**
 * The enrolled two-factor methods (totp, passkey): what makes the sign-in step pending. One
 * statement for both, since every sign-in asks.
 */
export async function enrolledFactorIds(
  services: CitadelServices,
  userId: number,
  db: Kysely<Database> = services.db,
): Promise<string[]> {
  const row = await db
    .selectNoFrom((eb) => [
      eb.exists(eb.selectFrom('totp_factors').select('id').where('user_id', '=', userId)).as('totp'),
      eb.exists(eb.selectFrom('passkeys').select('id').where('user_id', '=', userId)).as('passkey'),
    ])
    .executeTakeFirstOrThrow();
  // Booleans on PostgreSQL, 0/1 on SQLite and MySQL.
  return (['totp', 'passkey'] as const).filter((id) => Number(row[id]) === 1);
}

/** The sign-in facts of the factors plugin: one per enrollable factor (read with the user at sign-in). */
export const factorFacts: Record<string, SignInFact> = {
  'factors.totp': (eb, userId) =>
    eb.exists(eb.selectFrom('totp_factors').select('id').where('user_id', '=', userId)),
  'factors.passkey': (eb, userId) =>
    eb.exists(eb.selectFrom('passkeys').select('id').where('user_id', '=', userId)),
};

/** `enrolledFactorIds` for a sign-in in progress: from the facts it read (no statement of its own). */
export async function enrolledAtSignIn(request: FastifyRequest, user: UserRecord): Promise<string[]> {
  const facts = await signInFactsFor(request, user);
  return (['totp', 'passkey'] as const).filter((id) => facts[`factors.${id}`]);
}

/** Whether this user can prove any factor of `list` now: stops at the first (a password needs no query). */
export async function hasAvailableFactor(
  request: FastifyRequest,
  user: UserRecord,
  list: readonly Factor[],
): Promise<boolean> {
  for (const factor of list) if (await factor.isAvailable(request, user)) return true;
  return false;
}

/** The factors of `list` this user can prove now. */
export async function availableFactors(
  request: FastifyRequest,
  user: UserRecord,
  list: readonly Factor[],
): Promise<Factor[]> {
  const out: Factor[] = [];
  for (const factor of list) if (await factor.isAvailable(request, user)) out.push(factor);
  return out;
}
