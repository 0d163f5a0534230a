import type { FastifyRequest } from 'fastify';
import type { CitadelServices } from '../../http/fastify-types.ts';
import type { UserRecord } from '../core/users.ts';
import type { EnrollableFactor, Factor } from './types.ts';
import { hasTotp, totpFactor } from './totp.ts';
import { hasPasskey, passkeyFactor } from './passkey.ts';
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

/** The enrolled two-factor methods (totp, passkey): what makes the sign-in step pending. */
export async function enrolledFactorIds(services: CitadelServices, userId: number): Promise<string[]> {
  const ids: string[] = [];
  if (await hasTotp(services, userId)) ids.push('totp');
  if (await hasPasskey(services, userId)) ids.push('passkey');
  return ids;
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
