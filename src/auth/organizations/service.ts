import type { Kysely } from 'kysely';
import {
  type Database,
  type Dialect,
  type Caller,
  ConflictError,
  ForbiddenError,
  NotFoundError,
  ValidationError,
  randomToken,
  insertReturningId,
  retryOnDeadlock,
  type CitadelServices,
  originOf,
  recordSecurityEvent,
  type SecurityEventType,
  hasAbility,
  ACTIVE_ORGANIZATION_KEY,
  type ActiveTenant,
  type Tenancy,
  type TenantRequest,
  rowIdFromText,
} from '../../plugin-api.ts';
import type { OrganizationSummary } from './pages.ts';
import type { RolePermissions } from './roles.ts';
import { organizationsMessages } from './messages/index.ts';

/** The envelope's `action` of a refused change that would leave an organization without an owner. */
export const LAST_OWNER_ACTION = 'organizations.last_owner';

/** 409 `organizations.last_owner`: nothing was changed. */
export class LastOwnerError extends ConflictError {
  override name = 'LastOwnerError';
  constructor() {
    super(organizationsMessages.text('error.lastOwner'), {
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
 * hook), so that the `me` after hook can read it from the caller alone.
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
      const id = rowIdFromText(rawId);
      const member = id === null ? undefined : await membershipOf(db, userId, id);
      // A non-member learns nothing, not even that the organization exists.
      if (!member) throw new NotFoundError(organizationsMessages.text('error.organizationNotFound'));
      if (!holdsOrgRole(roles, member.role, orgRole))
        throw new ForbiddenError(
          orgRole === 'owner'
            ? organizationsMessages.text('error.ownerOnly')
            : orgRole === 'admin'
              ? organizationsMessages.text('error.managerOnly')
              : organizationsMessages.text('error.roleLacks', { permission: orgRole }),
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

export async function slugTaken(db: Kysely<Database>, slug: string, except?: number): Promise<boolean> {
  let query = db.selectFrom('organizations').select('id').where('slug', '=', slug);
  if (except !== undefined) query = query.where('id', '<>', except);
  return (await query.executeTakeFirst()) !== undefined;
}

/** A free slug from `base`: itself, else `base-2`, `base-3`, … */
export async function freeSlug(db: Kysely<Database>, base: string): Promise<string> {
  for (let n = 1; n < 1000; n++) {
    const slug = n === 1 ? base : `${base.slice(0, 58)}-${n}`;
    if (!(await slugTaken(db, slug))) return slug;
  }
  return `${base.slice(0, 48)}-${randomToken(6)
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '')}`;
}

export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: unknown; errno?: unknown; message?: unknown };
  return (
    e.code === '23505' ||
    e.code === 'ER_DUP_ENTRY' ||
    e.errno === 1062 ||
    (typeof e.message === 'string' && /UNIQUE constraint failed/i.test(e.message))
  );
}

/** The user's organizations with the user's role in each, by name. */
export function organizationsOf(db: Kysely<Database>, userId: number): Promise<OrganizationSummary[]> {
  return db
    .selectFrom('organization_members as m')
    .innerJoin('organizations as o', 'o.id', 'm.organization_id')
    .select(['o.id', 'o.name', 'o.slug', 'm.role'])
    .where('m.user_id', '=', userId)
    .orderBy('o.name')
    .orderBy('o.id')
    .execute();
}

/** The organization's members with their user's name and address, oldest first. */
export async function membersOf(db: Kysely<Database>, organizationId: number) {
  const rows = await db
    .selectFrom('organization_members as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['u.id', 'u.username', 'u.email', 'm.role', 'm.created_at'])
    .where('m.organization_id', '=', organizationId)
    .orderBy('m.id')
    .execute();
  return rows.map((row) => ({
    user: { id: row.id, username: row.username, email: row.email },
    role: row.role,
    created_at: row.created_at,
  }));
}

/** Who made a change, from where: the origin of its security events. */
export interface ChangeOrigin {
  ip: string;
  userAgent: string | null;
}

/** One security event, in `db` (the transaction of the change it records). */
export function recordEvent(
  services: CitadelServices,
  db: Kysely<Database>,
  origin: ChangeOrigin,
  userId: number,
  type: SecurityEventType,
  detail: Record<string, string | number>,
) {
  return recordSecurityEvent(db, services.clock, { userId, type, ...originOf(origin), detail });
}

/** A new organization with `ownerId` as its owner, in one transaction; its id (422 for a taken slug). */
export async function createOrganization(
  services: CitadelServices,
  origin: ChangeOrigin,
  ownerId: number,
  { name, slug }: { name: string; slug: string },
): Promise<number> {
  const { db, clock } = services;
  const now = clock.now().toISOString();
  try {
    return await retryOnDeadlock(() =>
      db.transaction().execute(async (trx) => {
        const organizationId = await insertReturningId(trx, 'organizations', { name, slug, created_at: now });
        await trx
          .insertInto('organization_members')
          .values({ organization_id: organizationId, user_id: ownerId, role: 'owner', created_at: now })
          .execute();
        await recordEvent(services, trx, origin, ownerId, 'organization_member_added', {
          organization_id: organizationId,
          role: 'owner',
        });
        return organizationId;
      }),
    );
  } catch (error) {
    // Two creations raced for the same slug: the second one is told, as if it had looked first.
    if (isUniqueViolation(error))
      throw new ValidationError({ slug: organizationsMessages.text('error.slugTaken') });
    throw error;
  }
}

/** Rename an organization or change its slug (422 for a taken slug). */
export async function updateOrganization(
  db: Kysely<Database>,
  id: number,
  changes: { name?: string; slug?: string },
): Promise<void> {
  try {
    await db.updateTable('organizations').set(changes).where('id', '=', id).execute();
  } catch (error) {
    if (isUniqueViolation(error))
      throw new ValidationError({ slug: organizationsMessages.text('error.slugTaken') });
    throw error;
  }
}

/**
 * Delete an organization in one transaction: every tenant-scoped resource's rows, the tokens made
 * for it, its invitations and members (each member's `organization_member_removed` event).
 */
export async function deleteOrganization(
  services: CitadelServices,
  origin: ChangeOrigin,
  id: number,
): Promise<void> {
  const tenantTables = (services.config.api?.resources ?? []).flatMap((resource) =>
    resource.tenant ? [{ table: resource.table ?? resource.name, column: resource.tenant }] : [],
  );
  const seen = new Set<string>();
  await retryOnDeadlock(() =>
    services.db.transaction().execute(async (trx) => {
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- application tables
      const anyDb = trx as unknown as Kysely<any>;
      for (const { table, column } of tenantTables) {
        if (seen.has(`${table}.${column}`)) continue;
        seen.add(`${table}.${column}`);
        await anyDb.deleteFrom(table).where(column, '=', id).execute();
      }
      await trx.deleteFrom('personal_access_tokens').where('organization_id', '=', id).execute();
      const members = await trx
        .selectFrom('organization_members')
        .select('user_id')
        .where('organization_id', '=', id)
        .execute();
      for (const row of members)
        await recordEvent(services, trx, origin, row.user_id, 'organization_member_removed', {
          organization_id: id,
          reason: 'organization_deleted',
        });
      await trx.deleteFrom('organization_invitations').where('organization_id', '=', id).execute();
      await trx.deleteFrom('organization_members').where('organization_id', '=', id).execute();
      await trx.deleteFrom('organizations').where('id', '=', id).execute();
    }),
  );
}

export function isManagerRole(role: string): boolean {
  return role === 'owner' || role === 'admin';
}

export function requireManager(member: Membership): void {
  if (!isManagerRole(member.role)) throw new ForbiddenError(organizationsMessages.text('error.managerOnly'));
}

/** Whether a member with `inviterRole` may invite (and keep inviting) with `role`. */
export function mayInviteAs(inviterRole: string | undefined, role: string): boolean {
  if (inviterRole === undefined || !isManagerRole(inviterRole)) return false;
  return role !== 'owner' || inviterRole === 'owner';
}

/**
 * A member's pending invitations that their new role (`null`: no longer a member) no longer
 * allows go for good: being made admin again later does not bring them back.
 */
export async function voidInvitationsOf(
  trx: Kysely<Database>,
  organizationId: number,
  userId: number,
  role: string | null,
): Promise<void> {
  let query = trx
    .deleteFrom('organization_invitations')
    .where('organization_id', '=', organizationId)
    .where('invited_by', '=', userId)
    .where('used_at', 'is', null);
  if (role === 'owner') return;
  if (role === 'admin') query = query.where('role', '=', 'owner');
  await query.execute();
}

/** The target's membership, the actor's rights over it, and the owner rule; in a transaction. */
function changeMember(
  services: CitadelServices,
  actor: Membership,
  targetId: number,
  change: (trx: Kysely<Database>, actor: Membership, target: Membership) => Promise<void>,
): Promise<void> {
  const organizationId = actor.id;
  return retryOnDeadlock(() =>
    services.db.transaction().execute(async (trx) => {
      if (!(await lockOrganization(trx, services.dialect, organizationId)))
        throw new NotFoundError(organizationsMessages.text('error.organizationNotFound'));
      const target = await membershipOf(trx, targetId, organizationId);
      if (!target) throw new NotFoundError(organizationsMessages.text('error.memberNotFound'));
      await change(trx, actor, target);
    }),
  );
}

/**
 * Give member `userId` of the actor's organization `role` (only an owner makes or changes an
 * owner; 409 for its last owner); their invitations the new role could not send are void.
 */
export async function changeMemberRole(
  services: CitadelServices,
  origin: ChangeOrigin,
  membership: Membership,
  userId: number,
  role: string,
): Promise<void> {
  const organizationId = membership.id;
  await changeMember(services, membership, userId, async (trx, actor, target) => {
    if ((target.role === 'owner' || role === 'owner') && actor.role !== 'owner')
      throw new ForbiddenError(organizationsMessages.text('error.ownerChangesOwner'));
    if (target.role === role) return;
    if (target.role === 'owner' && (await ownerCount(trx, organizationId)) <= 1) throw new LastOwnerError();
    await trx
      .updateTable('organization_members')
      .set({ role })
      .where('organization_id', '=', organizationId)
      .where('user_id', '=', userId)
      .execute();
    // Invitations the member sent that the new role could not send are void.
    await voidInvitationsOf(trx, organizationId, userId, role);
    await recordEvent(services, trx, origin, userId, 'organization_role_changed', {
      organization_id: organizationId,
      from: target.role,
      to: role,
    });
  });
}

/**
 * Remove member `userId` from the actor's organization (`self`: the actor leaves; otherwise an
 * owner or admin, only an owner removing an owner; 409 for its last owner), with the tokens made
 * for it and their pending invitations.
 */
export async function removeFromOrganization(
  services: CitadelServices,
  origin: ChangeOrigin,
  membership: Membership,
  userId: number,
  self: boolean,
): Promise<void> {
  const organizationId = membership.id;
  await changeMember(services, membership, userId, async (trx, actor, target) => {
    if (!self) {
      requireManager(actor);
      if (target.role === 'owner' && actor.role !== 'owner')
        throw new ForbiddenError(organizationsMessages.text('error.ownerRemovesOwner'));
    }
    if (target.role === 'owner' && (await ownerCount(trx, organizationId)) <= 1) throw new LastOwnerError();
    await trx
      .deleteFrom('organization_members')
      .where('organization_id', '=', organizationId)
      .where('user_id', '=', userId)
      .execute();
    // A token made for the organization acts for a member of it only.
    await trx
      .deleteFrom('personal_access_tokens')
      .where('user_id', '=', userId)
      .where('organization_id', '=', organizationId)
      .execute();
    await voidInvitationsOf(trx, organizationId, userId, null);
    await recordEvent(services, trx, origin, userId, 'organization_member_removed', {
      organization_id: organizationId,
      by: self ? 'self' : 'manager',
    });
  });
}
