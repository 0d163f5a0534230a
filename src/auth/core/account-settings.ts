import type { Kysely } from 'kysely';
import { ConfigError } from '../../config/errors.ts';
import type { CitadelConfig } from '../../config/types.ts';
import type { Database } from '../../db/schema.ts';

/**
 * Notification emails (contract section 10), by id. NOTIFY_EVENTS lists the ones to send
 * (default: all; `none` or an empty value: none).
 */
export const NOTIFICATION_IDS = [
  'new_device',
  'password_changed',
  'password_reset',
  'email_change',
  'factor_enrolled',
  'factor_removed',
  'token_created',
  'second_factor_locked',
] as const;

/** One kind of notification email (the values NOTIFY_EVENTS lists). */
export type NotificationId = (typeof NOTIFICATION_IDS)[number];

/** Days security events are kept unless EVENT_RETENTION_DAYS says otherwise. */
export const DEFAULT_EVENT_RETENTION_DAYS = 180;

/** The application's part of an account deletion: remove or anonymise its own rows of the user. */
export type UserDeletedHook = (
  user: { id: number; username: string; email: string },
  ctx: { db: Kysely<Database> },
) => Promise<void> | void;

declare module '../../config/types.ts' {
  interface ExtensionSettings {
    /** REQUIRE_TWO_FACTOR=1: every sign-in of a user without a factor enrolls one first. */
    requireTwoFactor?: boolean;
    /** NOTIFY_EVENTS: the notification emails to send (ids above); default all, [] none. */
    notifyEvents?: string[];
    /** EVENT_RETENTION_DAYS: security events are kept this long (default 180). */
    eventRetentionDays?: number;
    /** Runs inside the account deletion's transaction (`ctx.db` is that transaction). */
    onUserDeleted?: UserDeletedHook;
  }
}

/** The account center's resolved settings: notification emails to send and event retention. */
export interface AccountCenterSettings {
  requireTwoFactor: boolean;
  notifyEvents: readonly string[];
  eventRetentionDays: number;
}

const resolved = new WeakMap<CitadelConfig, AccountCenterSettings>();

/** The account center's settings: code options over environment variables over defaults. */
export function accountSettings(config: CitadelConfig): AccountCenterSettings {
  const cached = resolved.get(config);
  if (cached) return cached;
  const env = config.env ?? {};
  const requireTwoFactor = config.requireTwoFactor ?? env.REQUIRE_TWO_FACTOR === '1';
  let notifyEvents: string[] = [...NOTIFICATION_IDS];
  if (config.notifyEvents) notifyEvents = config.notifyEvents;
  else if (env.NOTIFY_EVENTS !== undefined)
    notifyEvents = env.NOTIFY_EVENTS.split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '' && s !== 'none');
  for (const id of notifyEvents) {
    if (!(NOTIFICATION_IDS as readonly string[]).includes(id))
      throw new ConfigError(
        `NOTIFY_EVENTS: unknown notification "${id}" (known: ${NOTIFICATION_IDS.join(', ')})`,
      );
  }
  let eventRetentionDays = config.eventRetentionDays ?? DEFAULT_EVENT_RETENTION_DAYS;
  if (config.eventRetentionDays === undefined && env.EVENT_RETENTION_DAYS) {
    if (!/^\d+$/.test(env.EVENT_RETENTION_DAYS) || Number(env.EVENT_RETENTION_DAYS) < 1)
      throw new ConfigError(
        `EVENT_RETENTION_DAYS must be a whole number of at least 1, got "${env.EVENT_RETENTION_DAYS}"`,
      );
    eventRetentionDays = Number(env.EVENT_RETENTION_DAYS);
  }
  const settings = { requireTwoFactor, notifyEvents, eventRetentionDays };
  resolved.set(config, settings);
  return settings;
}
