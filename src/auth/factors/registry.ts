import type { Kysely } from 'kysely';
import {
  type Database,
  type CitadelServices,
  type UserRecord,
  type EnrollableFactor,
  type Factor,
  signInFactsFor,
  type SignInFact,
  type RequestContext,
} from '../../plugin-api.ts';
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
export async function enrolledAtSignIn(request: RequestContext, user: UserRecord): Promise<string[]> {
  const facts = await signInFactsFor(request, user);
  return (['totp', 'passkey'] as const).filter((id) => facts[`factors.${id}`]);
}
