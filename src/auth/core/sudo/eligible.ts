import type { UserRecord } from '../users.ts';
import { availableFactors, hasAvailableFactor } from '../factors/registry.ts';
import type { RequestContext } from '../request-context.ts';

/** The factor ids this user can prove for sudo: password (if set), totp, passkey, recovery_code, plugins'. */
export async function sudoFactorsFor(request: RequestContext, user: UserRecord): Promise<string[]> {
  return (await availableFactors(request, user, request.services.factorRegistry.sudoFactors)).map(
    (f) => f.id,
  );
}

/** Whether this user has anything to prove for sudo (without listing it: usually no query at all). */
export function hasSudoFactor(request: RequestContext, user: UserRecord): Promise<boolean> {
  return hasAvailableFactor(request, user, request.services.factorRegistry.sudoFactors);
}
