import type { DeclaredEventTypes } from '../../plugin-api.ts';
import { TWO_FACTOR_REQUIRED_ACTION } from './last-factor.ts';

/** The security events of two-factor settings. */
export const FACTOR_EVENTS = [
  { type: 'factor_enrolled', label: 'Two-factor method added' },
  { type: 'factor_removed', label: 'Two-factor method removed' },
  { type: 'recovery_codes_regenerated', label: 'New recovery codes' },
] as const;

/** The `action`s of refusals and next steps beside the endpoints' own. */
export const FACTOR_ERROR_CODES = [TWO_FACTOR_REQUIRED_ACTION, 'passkey.action_required'] as const;

declare module '../../plugin-api.ts' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- declaration merging
  interface PluginSecurityEventTypes extends DeclaredEventTypes<typeof FACTOR_EVENTS> {}
}
