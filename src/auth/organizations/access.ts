import { Type } from '@sinclair/typebox';
import { NotFoundError, type Caller, type CitadelServices, rowIdFromText } from '../../plugin-api.ts';
import { membershipOf, type Membership } from './service.ts';
import { organizationsMessages } from './messages/index.ts';

/** An organization as its member sees it: with the member's role. */
export const OrganizationWithRole = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  slug: Type.String(),
  role: Type.String(),
});

const NOT_FOUND = {
  organization: organizationsMessages.text('error.organizationNotFound'),
  member: organizationsMessages.text('error.memberNotFound'),
  invitation: organizationsMessages.text('error.invitationNotFound'),
};

/** A path id, or 404: anything else (letters, out of the column's range) names nothing. */
export function parseId(
  raw: string,
  what: 'organization' | 'member' | 'invitation' = 'organization',
): number {
  const id = rowIdFromText(raw);
  if (id === null) throw new NotFoundError(NOT_FOUND[what]);
  return id;
}

/** The caller's membership of `organizationId`, or 404 (a non-member learns nothing). */
export async function requireMember(
  services: CitadelServices,
  caller: Caller,
  organizationId: number,
): Promise<Membership> {
  const member = await membershipOf(services.db, caller.user.id, organizationId);
  if (!member) throw new NotFoundError(organizationsMessages.text('error.organizationNotFound'));
  return member;
}

export { isManagerRole, mayInviteAs, requireManager } from './service.ts';
