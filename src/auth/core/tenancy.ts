import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import type { Caller } from '../../http/security/caller.ts';
import type { Session } from '../../http/sessions/session.ts';

/**
 * The organization a request acts in: the session's active organization, or
 * the one a personal access token was created for, with the caller's role there and the
 * permissions that role holds (written like token abilities: `projects:read`, `projects:*`, `*`).
 */
export interface ActiveTenant {
  organizationId: number;
  role: string;
  permissions: readonly string[];
}

/** A user's membership of an organization, as an `orgRole` endpoint's handler receives it. */
export interface OrganizationMembership {
  /** The organization's id. */
  id: number;
  name: string;
  slug: string;
  role: string;
}

/** What resolving the active organization reads of a request (a `RequestContext` is one). */
export interface TenantRequest {
  readonly caller: Caller | null;
  readonly session: Session;
}

/**
 * What the organizations capability gives the core: the request's active organization (checked
 * against the membership table on every resolution, so a removed member loses it at once), and
 * whether a user belongs to an organization (a token created for one).
 */
export interface Tenancy {
  resolve(request: TenantRequest, db: Kysely<Database>): Promise<ActiveTenant | null>;
  isMember(db: Kysely<Database>, userId: number, organizationId: number): Promise<boolean>;
  /**
   * The caller's membership of the organization a path's `:id` names (raw), holding `orgRole`
   * (an endpoint's declaration): 404 for a non-member or an id naming nothing, 403 short of the role.
   */
  authorize(
    db: Kysely<Database>,
    userId: number,
    organizationId: string,
    orgRole: string,
  ): Promise<OrganizationMembership>;
}

/** The session key holding the active organization's id. */
export const ACTIVE_ORGANIZATION_KEY = 'organization_id';

/**
 * The resolution, kept on the request's session object: one per request, shared by the Fastify
 * request and the plain `RequestContext` (and by an endpoint's input) of the same request. A
 * property, not a WeakMap entry per request (garbage collection walks every entry of a WeakMap).
 */
const kTenant = Symbol('citadel.activeTenant');

type ResolvedSession = Session & { [kTenant]?: ActiveTenant | null };

/** The request's active organization, resolved once per request (null without the plugin). */
export async function activeTenant(
  request: TenantRequest,
  services: { tenancy: Tenancy | null; db: Kysely<Database> },
): Promise<ActiveTenant | null> {
  const session = request.session as ResolvedSession;
  const known = session[kTenant];
  if (known !== undefined) return known;
  // Without a caller there is no organization, and nothing to look up or remember.
  const { tenancy } = services;
  if (!tenancy || !request.caller) return null;
  const tenant = await tenancy.resolve(request, services.db);
  session[kTenant] = tenant;
  return tenant;
}

/** The active organization `activeTenant` resolved for this request, or null if it did not run. */
export function resolvedTenant(request: TenantRequest): ActiveTenant | null {
  return (request.session as ResolvedSession)[kTenant] ?? null;
}

/** Forget the resolution (the request changed the active organization). */
export function forgetTenant(request: TenantRequest): void {
  (request.session as ResolvedSession)[kTenant] = undefined;
}
