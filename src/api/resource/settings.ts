import type { ApiConfig } from './types.ts';

declare module '../../config/types.ts' {
  interface ExtensionSettings {
    /** The resource API: resources and where they are published. */
    api?: ApiConfig;
  }
}
