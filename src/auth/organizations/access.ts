import { Type } from '@sinclair/typebox';
import type { Kysely } from 'kysely';
import { ForbiddenError, NotFoundError } from '../../core/errors.ts';
import type { Database } from '../../db/schema.ts';
import type { Caller } from '../../http/security/caller.ts';
import type { CitadelServices } from '../core/services.ts';
import { originOf, recordSecurityEvent, type SecurityEventType } from '../core/security-events.ts';
import { idOrNull, membershipOf, type Membership } from './service.ts';

/** An organization as its member sees it: with the member's role. */
export const OrganizationWithRole = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  slug: Type.String(),
  role: Type.String(),
});

export { idOrNull, MAX_ID } from './service.ts';

/** A path id, or 404: anything else (letters, out of the column's range) names nothing. */
export function parseId(raw: string, what = 'Organization'): number {
  const id = idOrNull(raw);
  if (id === null) throw new NotFoundError(`${what} not found.`);
  return id;
}

/** The caller's membership of `organizationId`, or 404 (a non-member learns nothing). */
export async function requireMember(
  services: CitadelServices,
  caller: Caller,
  organizationId: number,
): Promise<Membership> {
  const member = await membershipOf(services.db, caller.user.id, organizationId);
  if (!member) throw new NotFoundError('Organization not found.');
  return member;
}

export function isManagerRole(role: string): boolean {
  return role === 'owner' || role === 'admin';
}

export function requireManager(member: Membership): void {
  if (!isManagerRole(member.role))
    throw new ForbiddenError('Only an owner or an admin of the organization may do this.');
}

/** Whether a member with `inviterRole` may invite (and keep inviting) with `role`. */
export function mayInviteAs(inviterRole: string | undefined, role: string): boolean {
  if (inviterRole === undefined || !isManagerRole(inviterRole)) return false;
  return role !== 'owner' || inviterRole === 'owner';
}

/** One security event, in `db` (the transaction of the change it records). */
export function event(
  services: CitadelServices,
  db: Kysely<Database>,
  request: { ip: string; userAgent: string | null },
  userId: number,
  type: SecurityEventType,
  detail: Record<string, string | number>,
) {
  return recordSecurityEvent(db, services.clock, { userId, type, ...originOf(request), detail });
}
