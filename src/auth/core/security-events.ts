import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import type { Clock } from '../../core/clock.ts';
import { retryOnDeadlock } from '../../db/retry.ts';
import type { SessionCompanion } from '../../http/sessions/store.ts';
import { ConfigError } from '../../core/errors.ts';

/**
 * The event types the core records, with the words pages show for them: sessions, passwords,
 * access tokens, two-factor lockout. A plugin declares the types it records in its
 * `events`, and adds them to `PluginSecurityEventTypes` for the compiler.
 */
export const CORE_SECURITY_EVENTS = {
  sign_in: 'Signed in',
  sign_in_failed: 'Failed sign-in',
  sign_out: 'Signed out',
  session_revoked: 'Session signed out',
  password_changed: 'Password changed',
  password_reset: 'Password reset',
  token_created: 'Access token created',
  token_revoked: 'Access token revoked',
  second_factor_locked: 'Two-factor locked',
} as const satisfies Record<string, string>;

/**
 * The plugins' event types, by declaration merging: `declare module '…/auth/core/security-events.ts'
 * { interface PluginSecurityEventTypes extends DeclaredEventTypes<typeof MY_EVENTS> {} }`.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- extended by declaration merging
export interface PluginSecurityEventTypes {}

/** Every event type a writer may name: the core's and the plugins'. */
export type SecurityEventType = (keyof typeof CORE_SECURITY_EVENTS | keyof PluginSecurityEventTypes) & string;

/**
 * The types of a plugin's declarations, for `PluginSecurityEventTypes`:
 * `interface PluginSecurityEventTypes extends DeclaredEventTypes<typeof MY_EVENTS> {}`.
 */
export type DeclaredEventTypes<T extends readonly SecurityEventDeclaration[]> = Record<
  T[number]['type'],
  true
>;

/** An event type a plugin records, with how pages name it. */
export interface SecurityEventDeclaration<T extends string = string> {
  type: T;
  /** What the events page says happened ("Added to an organization"). */
  label: string;
}

/**
 * Every type a server of this process registered (the core's always): outside production a write
 * of any other type throws, so a plugin that records a type it does not declare fails its tests.
 */
const registeredTypes = new Set<string>(Object.keys(CORE_SECURITY_EVENTS));

/**
 * The event types of a server's plugins with their labels, the core's first: what lists show.
 * Throws when two plugins declare one type, or a plugin declares a core type.
 */
export function securityEventTypes(
  plugins: readonly { id: string; events?: readonly SecurityEventDeclaration[] }[],
): ReadonlyMap<string, string> {
  const labels = new Map<string, string>(Object.entries(CORE_SECURITY_EVENTS));
  const owners = new Map<string, string>();
  for (const plugin of plugins) {
    for (const { type, label } of plugin.events ?? []) {
      if (labels.has(type)) {
        const owner = owners.has(type) ? `plugin "${owners.get(type)}"` : 'the core';
        throw new ConfigError(
          `plugin "${plugin.id}" declares the security event "${type}", which ${owner} declares`,
        );
      }
      labels.set(type, label);
      owners.set(type, plugin.id);
    }
  }
  for (const type of labels.keys()) registeredTypes.add(type);
  return labels;
}

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
  if (!registeredTypes.has(event.type) && process.env.NODE_ENV !== 'production')
    throw new Error(`security event type "${event.type}" is declared by no plugin (events)`);
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

/** The origin of an event caused by `request`: its client address and User-Agent. */
export function originOf(request: { ip: string; userAgent: string | null }): EventOrigin {
  return { ip: request.ip, userAgent: request.userAgent };
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
