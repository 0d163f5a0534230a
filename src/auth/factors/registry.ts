import type { FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import type { CitadelServices } from '../../http/fastify-types.ts';
import type { UserRecord } from '../core/users.ts';
import type { EnrollableFactor, Factor } from './types.ts';
import { signInFactsFor, type SignInFact } from '../core/sign-in-facts.ts';
import { totpFactor } from './totp.ts';
import { passkeyFactor } from './passkey.ts';
import { recoveryCodeFactor } from './recovery.ts';
import { passwordFactor } from './password.ts';

export const enrollableFactors: readonly EnrollableFactor[] = [totpFactor, passkeyFactor];
/** What the `two_factor` sign-in step accepts. */
export const secondFactors: readonly Factor[] = [totpFactor, passkeyFactor, recoveryCodeFactor];
/** What sudo accepts, in the order the sudo page shows them. */
export const sudoProofFactors: readonly Factor[] = [
  passwordFactor,
  totpFactor,
  passkeyFactor,
  recoveryCodeFactor,
];

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
