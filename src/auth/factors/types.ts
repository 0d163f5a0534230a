import type { FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { UserRecord } from '../core/users.ts';
import type { Database } from '../../db/schema.ts';

/**
 * How a factor stores its change: `write` runs on the database handle it is given, which the
 * caller may make a transaction that also records the change's security event (contract 10: the
 * event commits with its change). Checks before the write use the factor's own handle.
 */
export type CommitWrite = <T>(write: (db: Kysely<Database>) => Promise<T>) => Promise<T>;

/** Where a proof is being given: a sign-in step or a sudo step-up. Challenges never cross scopes. */
export type ProofScope = 'sign_in' | 'sudo';

/** The built-in factors. */
export type FactorId = 'totp' | 'passkey' | 'recovery_code' | 'password';

/**
 * One way of proving who you are. Enrollable factors (totp, passkey) implement the enroll and
 * unenroll steps; recovery codes come with the first enrolled factor; password is a sudo proof only.
 */
export interface Factor {
  id: FactorId;
  label: string;
  /** Can this user prove it right now? */
  isAvailable(request: FastifyRequest, user: UserRecord): Promise<boolean>;
  /** What the client needs before answering (passkey: request options); most need nothing. */
  challenge(request: FastifyRequest, user: UserRecord, scope: ProofScope): Promise<Record<string, unknown>>;
  /** True for a good proof; false for a wrong or malformed one. Never throws for bad input. */
  verify(request: FastifyRequest, user: UserRecord, proof: unknown, scope: ProofScope): Promise<boolean>;
}

/** A factor a user adds and removes in the two-factor settings (TOTP, passkeys). */
export interface EnrollableFactor extends Factor {
  id: 'totp' | 'passkey';
  enrollStart(
    request: FastifyRequest,
    user: UserRecord,
    body: Record<string, unknown>,
  ): Promise<Record<string, unknown>>;
  /** True when the proof of possession is good and the factor is now stored. */
  enrollConfirm(
    request: FastifyRequest,
    user: UserRecord,
    proof: unknown,
    body: Record<string, unknown>,
    commit?: CommitWrite,
  ): Promise<boolean>;
  /** False when there was nothing to remove. */
  unenroll(
    request: FastifyRequest,
    user: UserRecord,
    body: Record<string, unknown>,
    commit?: CommitWrite,
  ): Promise<boolean>;
}
