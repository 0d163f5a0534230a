import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import type { Clock } from '../../core/clock.ts';
import { retryOnDeadlock } from '../../db/retry.ts';
import type { SessionCompanion } from '../../http/sessions/store.ts';
import { pagePagination, type PagePagination } from './page-pagination.ts';

/** The core's security event types. */
export const SECURITY_EVENT_TYPES = [
  'sign_in',
  'sign_in_failed',
  'sign_out',
  'password_changed',
  'password_reset',
  'email_change_requested',
  'email_changed',
  'username_changed',
  'factor_enrolled',
  'factor_removed',
  'recovery_codes_regenerated',
  'token_created',
  'token_revoked',
  'session_revoked',
  'sudo_elevated',
  'second_factor_locked',
  'account_deleted',
  // An administrator's actions on the account, the admin's id in `detail`.
  'account_disabled',
  'account_enabled',
  'signed_out_by_admin',
  'impersonation_started',
  'impersonation_ended',
  'organization_member_added',
  'organization_member_removed',
  'organization_role_changed',
  'organization_invitation_accepted',
] as const;

export type SecurityEventType = (typeof SECURITY_EVENT_TYPES)[number];

/** Plain facts only: strings, numbers, booleans. */
export type EventDetail = Record<string, string | number | boolean | null>;

export interface SecurityEventInput {
  userId: number | null;
  type: SecurityEventType;
  ip?: string | null;
  userAgent?: string | null;
  detail?: EventDetail;
  /** Default: now. */
  at?: Date;
}

/** Keys that may never be stored, whatever a caller passes: the log must not become a secret store. */
const SECRET_KEY = /pass|secret|token(?!_id|_name)|code|proof|otp|hash|cookie|challenge/i;
const MAX_USER_AGENT = 512;
const MAX_DETAIL_VALUE = 200;

/** The detail as stored: secret-looking keys dropped, long values cut. */
export function safeDetail(detail: EventDetail = {}): EventDetail {
  const out: EventDetail = {};
  for (const [key, value] of Object.entries(detail)) {
    if (SECRET_KEY.test(key)) continue;
    out[key] = typeof value === 'string' ? value.slice(0, MAX_DETAIL_VALUE) : value;
  }
  return out;
}

/**
 * Write one security event. Pass the transaction that makes the change, so the change and its
 * record commit (or roll back) together. The one function every capability calls.
 */
export async function recordSecurityEvent(
  db: Kysely<Database>,
  clock: Clock,
  event: SecurityEventInput,
): Promise<void> {
  await db.insertInto('security_events').values(securityEventRow(clock, event)).execute();
}

/** The stored row of an event. */
function securityEventRow(clock: Clock, event: SecurityEventInput) {
  return {
    user_id: event.userId,
    type: event.type,
    ip: event.ip?.slice(0, 64) ?? null,
    user_agent: event.userAgent?.slice(0, MAX_USER_AGENT) ?? null,
    detail: JSON.stringify(safeDetail(event.detail)),
    created_at: (event.at ?? clock.now()).toISOString(),
  };
}

/**
 * An event of a session change (sign-in, sign-out, sudo), for `request.session.alongWithSave`:
 * stored with the session write, in one commit.
 */
export function sessionEvent(
  clock: Clock,
  event: SecurityEventInput,
  afterCommit?: () => void,
): SessionCompanion {
  return { table: 'security_events', values: securityEventRow(clock, event), afterCommit };
}

/** Who caused an event: the request's address and browser. */
export interface EventOrigin {
  ip: string | null;
  userAgent: string | null;
}

export function originOf(request: { ip: string; userAgent: string | null }): EventOrigin {
  return { ip: request.ip, userAgent: request.userAgent };
}

export interface SecurityEventView {
  id: number;
  type: string;
  created_at: string;
  ip: string | null;
  user_agent: string | null;
  detail: EventDetail;
}

export interface EventPage {
  events: SecurityEventView[];
  pagination: PagePagination;
}

/** One page of a user's events, newest first (ties by id, so pages never overlap). */
export async function listSecurityEvents(
  db: Kysely<Database>,
  userId: number,
  page: number,
  limit: number,
): Promise<EventPage> {
  const rows = await db
    .selectFrom('security_events')
    .select(['id', 'type', 'created_at', 'ip', 'user_agent', 'detail'])
    .where('user_id', '=', userId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .offset((page - 1) * limit)
    .execute();
  const count = await db
    .selectFrom('security_events')
    .select((eb) => eb.fn.countAll().as('total'))
    .where('user_id', '=', userId)
    .executeTakeFirst();
  const total = Number(count?.total ?? 0);
  return {
    events: rows.map((r) => ({
      id: Number(r.id),
      type: r.type,
      created_at: r.created_at,
      ip: r.ip,
      user_agent: r.user_agent,
      detail: JSON.parse(r.detail) as EventDetail,
    })),
    pagination: pagePagination(page, limit, total),
  };
}

/** The retention sweep: events older than `days` go. Returns how many were deleted. */
export async function sweepSecurityEvents(db: Kysely<Database>, clock: Clock, days: number): Promise<number> {
  const cutoff = new Date(clock.now().getTime() - days * 24 * 60 * 60 * 1000).toISOString();
  const result = await db.deleteFrom('security_events').where('created_at', '<', cutoff).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * Make a change and record its event in one transaction: both commit or neither does. `recordIf`
 * skips the event when the change turned out to do nothing (for example an unknown token id).
 */
export async function changeWithEvent<T>(
  services: { db: Kysely<Database>; clock: Clock },
  event: Omit<SecurityEventInput, 'at'>,
  change: (db: Kysely<Database>) => Promise<T>,
  recordIf: (result: T) => boolean = () => true,
): Promise<T> {
  // A deadlock victim (InnoDB, PostgreSQL) was undone whole: the change and its event run again.
  return retryOnDeadlock(() =>
    services.db.transaction().execute(async (trx) => {
      const result = await change(trx);
      if (recordIf(result)) await recordSecurityEvent(trx, services.clock, event);
      return result;
    }),
  );
}
