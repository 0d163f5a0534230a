import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import type { Dialect } from '../../db/url.ts';
import type { Caller } from '../../http/security/caller.ts';
import { ConflictError, ForbiddenError, NotFoundError } from '../../core/errors.ts';
import { hasAbility } from '../core/abilities.ts';
import {
  ACTIVE_ORGANIZATION_KEY,
  type ActiveTenant,
  type Tenancy,
  type TenantRequest,
} from '../core/tenancy.ts';
import type { RolePermissions } from './roles.ts';

/** The envelope's `action` of a refused change that would leave an organization without an owner. */
export const LAST_OWNER_ACTION = 'organizations.last_owner';

/** 409 `organizations.last_owner`: nothing was changed. */
export class LastOwnerError extends ConflictError {
  override name = 'LastOwnerError';
  constructor() {
    super('An organization keeps at least one owner: make another member an owner first.', {
      action: LAST_OWNER_ACTION,
    });
  }
}

export interface Membership {
  id: number;
  name: string;
  slug: string;
  role: string;
}

/** The caller's organization and role there, joined in one statement; undefined when not a member. */
export async function membershipOf(
  db: Kysely<Database>,
  userId: number,
  organizationId: number,
): Promise<Membership | undefined> {
  return db
    .selectFrom('organization_members as m')
    .innerJoin('organizations as o', 'o.id', 'm.organization_id')
    .select(['o.id', 'o.name', 'o.slug', 'm.role'])
    .where('m.user_id', '=', userId)
    .where('m.organization_id', '=', organizationId)
    .executeTakeFirst();
}

/**
 * The session's active organization, noted when the caller is known (the plugin's `request`
 * event), so that `extendMe(caller, db)` can read it without the request.
 */
const sessionOrganization = new WeakMap<Caller, number>();

export function noteSessionOrganization(request: TenantRequest): void {
  const caller = request.caller;
  if (caller?.via !== 'session') return;
  const id = request.session.get<number>(ACTIVE_ORGANIZATION_KEY);
  if (typeof id === 'number') sessionOrganization.set(caller, id);
}

/** The organization a caller acts in: its token's, or its session's active one. */
export function activeOrganizationId(caller: Caller, request?: TenantRequest): number | null {
  if (caller.via === 'token') return caller.token.organization_id ?? null;
  const id = request ? request.session.get<number>(ACTIVE_ORGANIZATION_KEY) : sessionOrganization.get(caller);
  return typeof id === 'number' ? id : null;
}

/** The tenancy the engine asks: membership is checked on every request. */
export function createTenancy(roles: RolePermissions): Tenancy {
  return {
    async resolve(request, db): Promise<ActiveTenant | null> {
      const caller = request.caller;
      if (!caller) return null;
      const organizationId = activeOrganizationId(caller, request);
      if (organizationId === null) return null;
      const member = await membershipOf(db, caller.user.id, organizationId);
      if (!member) return null;
      return { organizationId, role: member.role, permissions: roles.get(member.role) ?? [] };
    },
    async isMember(db, userId, organizationId) {
      return (await membershipOf(db, userId, organizationId)) !== undefined;
    },
    async authorize(db, userId, rawId, orgRole) {
      const id = idOrNull(rawId);
      const member = id === null ? undefined : await membershipOf(db, userId, id);
      // A non-member learns nothing, not even that the organization exists.
      if (!member) throw new NotFoundError('Organization not found.');
      if (!holdsOrgRole(roles, member.role, orgRole))
        throw new ForbiddenError(
          orgRole === 'owner'
            ? 'Only an owner of the organization may do this.'
            : orgRole === 'admin'
              ? 'Only an owner or an admin of the organization may do this.'
              : `Your role in the organization does not hold ${orgRole}.`,
        );
      return member;
    },
  };
}

/** Whether a member with `role` holds an endpoint's `orgRole`. */
export function holdsOrgRole(roles: RolePermissions, role: string, orgRole: string): boolean {
  if (orgRole === 'member') return true;
  if (orgRole === 'owner') return role === 'owner';
  if (orgRole === 'admin') return role === 'owner' || role === 'admin';
  return hasAbility(roles.get(role) ?? [], orgRole);
}

/** The largest id every dialect's `integer` column holds (PostgreSQL and MariaDB: 32-bit signed). */
export const MAX_ID = 2_147_483_647;

/** A path id, or null: a positive integer that fits the id column. */
export function idOrNull(raw: unknown): number | null {
  if (typeof raw !== 'string' || !/^[1-9][0-9]{0,9}$/.test(raw)) return null;
  const id = Number(raw);
  return id <= MAX_ID ? id : null;
}

/**
 * Lock the organization's row until the transaction ends, so that two changes to its owners run
 * one after the other (the second counts the owners the first left). SQLite has one writer.
 */
export async function lockOrganization(db: Kysely<Database>, dialect: Dialect, id: number): Promise<boolean> {
  let query = db.selectFrom('organizations').select('id').where('id', '=', id);
  if (dialect !== 'sqlite') query = query.forUpdate();
  return (await query.executeTakeFirst()) !== undefined;
}

export async function ownerCount(db: Kysely<Database>, organizationId: number): Promise<number> {
  const row = await db
    .selectFrom('organization_members')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('organization_id', '=', organizationId)
    .where('role', '=', 'owner')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
