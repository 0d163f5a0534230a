import type { FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';

/**
 * The organization a request acts in (contract section 17): the session's active organization, or
 * the one a personal access token was created for, with the caller's role there and the
 * permissions that role holds (written like token abilities: `projects:read`, `projects:*`, `*`).
 */
export interface ActiveTenant {
  organizationId: number;
  role: string;
  permissions: readonly string[];
}

/**
 * What the organizations capability gives the core: the request's active organization (checked
 * against the membership table on every resolution, so a removed member loses it at once), and
 * whether a user belongs to an organization (a token created for one).
 */
export interface Tenancy {
  resolve(request: FastifyRequest): Promise<ActiveTenant | null>;
  isMember(db: Kysely<Database>, userId: number, organizationId: number): Promise<boolean>;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The organizations plugin's tenancy, or null when no plugin brings one. */
    tenancy: Tenancy | null;
  }
}

/** The session key holding the active organization's id. */
export const ACTIVE_ORGANIZATION_KEY = 'organization_id';

const resolved = new WeakMap<FastifyRequest, ActiveTenant | null>();

/** The request's active organization, resolved once per request (null without the plugin). */
export async function activeTenant(request: FastifyRequest): Promise<ActiveTenant | null> {
  if (resolved.has(request)) return resolved.get(request)!;
  const tenancy = request.server.tenancy;
  const tenant = tenancy && request.caller ? await tenancy.resolve(request) : null;
  resolved.set(request, tenant);
  return tenant;
}

/** The active organization `activeTenant` resolved for this request, or null if it did not run. */
export function resolvedTenant(request: FastifyRequest): ActiveTenant | null {
  return resolved.get(request) ?? null;
}

/** Forget the resolution (the request changed the active organization). */
export function forgetTenant(request: FastifyRequest): void {
  resolved.delete(request);
}
