import type { DeclaredEventTypes } from '../../plugin-api.ts';

/** The security events of an administrator's actions on an account (the admin's id in `detail`). */
export const ADMIN_EVENTS = [
  { type: 'account_disabled', label: 'Account disabled' },
  { type: 'account_enabled', label: 'Account enabled' },
  { type: 'signed_out_by_admin', label: 'Signed out by an administrator' },
  { type: 'impersonation_started', label: 'Administrator acting as you' },
  { type: 'impersonation_ended', label: 'Administrator stopped acting as you' },
] as const;

declare module '../../plugin-api.ts' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- declaration merging
  interface PluginSecurityEventTypes extends DeclaredEventTypes<typeof ADMIN_EVENTS> {}
}
