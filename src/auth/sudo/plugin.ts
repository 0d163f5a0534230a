import {
  definePlugin,
  givenOptions,
  hasSudoFactor,
  grantSudo,
  type DeclaredEventTypes,
} from '../../plugin-api.ts';
import { sudoEndpoints } from './routes.ts';
import { sudoMessages } from './messages/index.ts';
import { SUDO_ID, resolveSudoOptions, sudoDefaults, sudoOptions, type SudoOptions } from './options.ts';

/** The security event of a confirmed identity (sudo granted). */
const SUDO_EVENTS = [{ type: 'sudo_elevated', label: 'Identity confirmed' }] as const;

declare module '../../plugin-api.ts' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- declaration merging
  interface PluginSecurityEventTypes extends DeclaredEventTypes<typeof SUDO_EVENTS> {}
}

/** Step-up (sudo) mode for sensitive operations: `sudo({ ttlSeconds: 600 })`. */
export function sudo(options: Partial<SudoOptions> = {}) {
  return definePlugin({
    id: SUDO_ID,
    options: { ...sudoDefaults, ...givenOptions(options) },
    resolveOptions: (config) => resolveSudoOptions(options, config),
    endpoints: sudoEndpoints,
    events: SUDO_EVENTS,
    messages: sudoMessages,
    hooks: {
      // A user with nothing to prove (for example social-only, no password) is elevated at sign-in.
      async signedIn({ request, user }) {
        if (!(await hasSudoFactor(request, user)))
          grantSudo(request, user.id, sudoOptions(request.services).ttlSeconds);
      },
    },
  });
}
