import { definePlugin } from '../../plugin.ts';
import { sudoEndpoints } from './routes.ts';
import { hasSudoFactor } from '../core/sudo/eligible.ts';
import { grantSudo } from '../core/sudo/state.ts';

/** Step-up (sudo) mode for sensitive operations. */
export const sudoPlugin = definePlugin({
  name: 'sudo',
  endpoints: sudoEndpoints,
  events: {
    // A user with nothing to prove (for example social-only, no password) is elevated at sign-in.
    async signedIn({ request, user }) {
      if (!(await hasSudoFactor(request, user))) grantSudo(request, user.id);
    },
  },
});
