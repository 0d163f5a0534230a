import type { UserRecord, RequestContext } from '../../plugin-api.ts';
import { enrollableFactors, enrolledFactorIds } from './registry.ts';
import { recoveryCodesRemaining } from './recovery.ts';
import { passkeySummaries } from './passkey.ts';

const AVAILABLE = enrollableFactors.map((f) => ({ id: f.id, label: f.label }));

/** What GET /two-factor shows; also what the settings page re-reads after a form action. */
export async function settingsData(
  request: RequestContext,
  user: UserRecord,
): Promise<Record<string, unknown>> {
  const services = request.services;
  return {
    enrolled_factors: await enrolledFactorIds(services, user.id),
    available_factors: AVAILABLE,
    recovery_codes_remaining: await recoveryCodesRemaining(services, user.id),
    passkeys: await passkeySummaries(services, user.id),
  };
}
