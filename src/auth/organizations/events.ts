import type { DeclaredEventTypes } from '../../plugin-api.ts';
import { LAST_OWNER_ACTION } from './service.ts';

/** The security events of a membership, recorded for the member concerned. */
export const ORGANIZATION_EVENTS = [
  { type: 'organization_member_added', label: 'Added to an organization' },
  { type: 'organization_member_removed', label: 'Removed from an organization' },
  { type: 'organization_role_changed', label: 'Organization role changed' },
  { type: 'organization_invitation_accepted', label: 'Organization invitation accepted' },
] as const;

/**
 * The `action`s the organizations plugin answers with beside its endpoints' own: its refusals, and
 * the invitation link's page (a route of its own).
 */
export const ORGANIZATION_ERROR_CODES = [
  LAST_OWNER_ACTION,
  'organizations.email_unconfirmed',
  'organizations.invitation',
] as const;

declare module '../../plugin-api.ts' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- declaration merging
  interface PluginSecurityEventTypes extends DeclaredEventTypes<typeof ORGANIZATION_EVENTS> {}
}
