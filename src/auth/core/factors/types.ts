import type { Kysely } from 'kysely';
import type { UserRecord } from '../users.ts';
import type { Database } from '../../../db/schema.ts';
import type { RequestContext } from '../request-context.ts';

/**
 * How a factor stores its change: `write` runs on the database handle it is given, which the
 * caller may make a transaction that also records the change's security event (the
 * event commits with its change). Checks before the write use the factor's own handle.
 */
export type CommitWrite = <T>(write: (db: Kysely<Database>) => Promise<T>) => Promise<T>;

/** Where a proof is being given: a sign-in step or a sudo step-up. Challenges never cross scopes. */
export type ProofScope = 'sign_in' | 'sudo';

/** The built-in factors. */
export type BuiltInFactorId = 'totp' | 'passkey' | 'recovery_code' | 'password';

/** A factor's id: a built-in one or a plugin's own (letters, digits, `_`). */
export type FactorId = BuiltInFactorId | (string & {});

/**
 * One way of proving who you are. The built-in factors (TOTP, passkey, recovery code, password)
 * implement it, and a plugin adds its own in `factors: [...]`: the `two_factor` sign-in step and
 * sudo then list it (`GET /action/show`, `GET /sudo`) and verify `{ factor: id, proof }` with it.
 * Enrollable factors (totp, passkey) also implement the enroll and unenroll steps; recovery codes
 * come with the first enrolled factor; password is a sudo proof only.
 */
export interface Factor {
  id: FactorId;
  /** What the pages call it ("Authenticator app", "Security PIN"). */
  label: string;
  /**
   * Where it is accepted (default both): `sign_in`, the `two_factor` step after a password or
   * another first factor; `sudo`, the step-up before sensitive changes.
   */
  scopes?: readonly ProofScope[];
  /**
   * Whether this user has set the factor up, so that every sign-in asks for a second factor.
   * Plugin factors accepted at sign-in implement it; without it a factor is accepted when
   * available but does not by itself make the step pending (like recovery codes).
   */
  isEnrolled?(request: RequestContext, user: UserRecord): Promise<boolean>;
  /** The proof's text field on the HTML pages (plugin factors; the built-ins render their own). */
  proofInput?: { label: string; autocomplete?: string; inputmode?: 'numeric' | 'text' };
  /** Can this user prove it right now? */
  isAvailable(request: RequestContext, user: UserRecord): Promise<boolean>;
  /** What the client needs before answering (passkey: request options); most need nothing. */
  challenge(request: RequestContext, user: UserRecord, scope: ProofScope): Promise<Record<string, unknown>>;
  /** True for a good proof; false for a wrong or malformed one. Never throws for bad input. */
  verify(request: RequestContext, user: UserRecord, proof: unknown, scope: ProofScope): Promise<boolean>;
}

/** A factor a user adds and removes in the two-factor settings (TOTP, passkeys). */
export interface EnrollableFactor extends Factor {
  id: 'totp' | 'passkey';
  enrollStart(
    request: RequestContext,
    user: UserRecord,
    body: Record<string, unknown>,
  ): Promise<Record<string, unknown>>;
  /** True when the proof of possession is good and the factor is now stored. */
  enrollConfirm(
    request: RequestContext,
    user: UserRecord,
    proof: unknown,
    body: Record<string, unknown>,
    commit?: CommitWrite,
  ): Promise<boolean>;
  /** False when there was nothing to remove. */
  unenroll(
    request: RequestContext,
    user: UserRecord,
    body: Record<string, unknown>,
    commit?: CommitWrite,
  ): Promise<boolean>;
}

/** A plugin's factor as the pages show it: a text proof. */
export interface PluginFactorView {
  id: string;
  label: string;
  input: { label: string; autocomplete?: string; inputmode?: 'numeric' | 'text' };
}
