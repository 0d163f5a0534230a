// Type test (compiled by `npm run typecheck`): a plugin written against `citadel/plugin` types its
// own security event types by merging into that module, with no cast; an undeclared type is refused.
import {
  definePlugin,
  recordSecurityEvent,
  type CitadelServices,
  type DeclaredEventTypes,
  type SecurityEventType,
} from '../../../src/plugin-api.ts';

const EXPORT_EVENTS = [{ type: 'acme.data_exported', label: 'Exported data' }] as const;

declare module '../../../src/plugin-api.ts' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- declaration merging
  interface PluginSecurityEventTypes extends DeclaredEventTypes<typeof EXPORT_EVENTS> {}
}

export const exportPlugin = definePlugin({ id: 'acme-export', events: EXPORT_EVENTS });

export async function record(services: CitadelServices, userId: number): Promise<void> {
  await recordSecurityEvent(services.db, services.clock, { userId, type: 'acme.data_exported' });
  // The built-ins' types still are.
  await recordSecurityEvent(services.db, services.clock, { userId, type: 'sign_in' });
  const builtIn: SecurityEventType = 'sudo_elevated';
  void builtIn;
  // @ts-expect-error a type no plugin declares
  await recordSecurityEvent(services.db, services.clock, { userId, type: 'acme.undeclared' });
}
