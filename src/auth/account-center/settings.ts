import { ConfigError } from '../../config/errors.ts';
import type { CitadelOptions } from '../../config/types.ts';

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

export type NotificationId = (typeof NOTIFICATION_IDS)[number];

export const DEFAULT_EVENT_RETENTION_DAYS = 180;

export function accountCenterSettings(
  options: CitadelOptions,
  env: Record<string, string | undefined>,
): { requireTwoFactor: boolean; notifyEvents: string[]; eventRetentionDays: number } {
  const requireTwoFactor = options.requireTwoFactor ?? env.REQUIRE_TWO_FACTOR === '1';
  let notifyEvents: string[] = [...NOTIFICATION_IDS];
  if (options.notifyEvents) notifyEvents = options.notifyEvents;
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
  let eventRetentionDays = options.eventRetentionDays ?? DEFAULT_EVENT_RETENTION_DAYS;
  if (options.eventRetentionDays === undefined && env.EVENT_RETENTION_DAYS) {
    if (!/^\d+$/.test(env.EVENT_RETENTION_DAYS) || Number(env.EVENT_RETENTION_DAYS) < 1)
      throw new ConfigError(
        `EVENT_RETENTION_DAYS must be a whole number of at least 1, got "${env.EVENT_RETENTION_DAYS}"`,
      );
    eventRetentionDays = Number(env.EVENT_RETENTION_DAYS);
  }
  return { requireTwoFactor, notifyEvents, eventRetentionDays };
}
