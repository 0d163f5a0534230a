import type { FastifyRequest } from 'fastify';
import type { UserRecord } from '../core/users.ts';
import { availableFactors, sudoProofFactors } from '../factors/registry.ts';

/** The factor ids this user can prove for sudo: password (if set), totp, passkey, recovery_code. */
export async function sudoFactorsFor(request: FastifyRequest, user: UserRecord): Promise<string[]> {
  return (await availableFactors(request, user, sudoProofFactors)).map((f) => f.id);
}
