import type { CitadelServices } from '../../services.ts';
import type { UserRecord } from '../users.ts';

/** A lookup of the enrolled two-factor methods usable for sudo; the factors module sets it. */
export type EnrolledFactorLookup = (services: CitadelServices, userId: number) => Promise<string[]>;

let enrolledLookup: EnrolledFactorLookup = async () => [];

export function setEnrolledFactorLookup(lookup: EnrolledFactorLookup): void {
  enrolledLookup = lookup;
}

/** The factor ids this user can prove for sudo: password (if set) and every enrolled factor. */
export async function sudoFactorsFor(services: CitadelServices, user: UserRecord): Promise<string[]> {
  const factors: string[] = [];
  if (user.password_hash) factors.push('password');
  factors.push(...(await enrolledLookup(services, user.id)));
  return factors;
}
