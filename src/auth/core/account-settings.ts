import type { Kysely } from 'kysely';
import { ConfigError } from '../../core/errors.ts';
import type { CitadelConfig } from '../../config/types.ts';
import type { Database } from '../../db/schema.ts';
import type { AfterCommit } from '../../db/after-commit.ts';

/**
 * Notification emails, by id. NOTIFY_EVENTS lists the ones to send
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

/**
 * The application's part of an account deletion: remove or anonymise its own rows of the user
 * with `ctx.db`, the deletion's transaction. It may run more than once for one deletion (a
 * deadlock victim is run again), so what it does outside the database (a billing API, a mail)
 * goes through `ctx.afterCommit(effect)`: run once, after the deletion committed, never for a
 * deletion that was rolled back.
 */
export type UserDeletedHook = (
  user: { id: number; username: string; email: string },
  ctx: { db: Kysely<Database>; afterCommit: AfterCommit },
) => Promise<void> | void;

declare module '../../config/types.ts' {
  interface ExtensionSettings {
    /** NOTIFY_EVENTS: the notification emails to send (ids above); default all, [] none. */
    notifyEvents?: string[];
    /**
     * Runs inside the account deletion's transaction (`ctx.db` is that transaction); effects
     * outside the database go through `ctx.afterCommit`.
     */
    onUserDeleted?: UserDeletedHook;
  }
}

/**
 * The notification emails to send (read by the core's `notify`, which every capability uses). The
 * account center's and the factors' own settings are their plugins' options.
 */
export interface AccountCenterSettings {
  notifyEvents: readonly string[];
}

const resolved = new WeakMap<CitadelConfig, AccountCenterSettings>();

/** The notification settings: code options over environment variables over defaults. */
export function accountSettings(config: CitadelConfig): AccountCenterSettings {
  const cached = resolved.get(config);
  if (cached) return cached;
  const env = config.env ?? {};
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
  const settings = { notifyEvents };
  resolved.set(config, settings);
  return settings;
}
