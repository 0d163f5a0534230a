import type { CitadelServices } from '../auth/core/services.ts';

declare module '../config/types.ts' {
  interface ExtensionSettings {
    /** Sample data, run after migrations when `seedDemo` is on; it decides itself whether to add anything. */
    seed?: (services: CitadelServices) => Promise<void>;
  }
}
