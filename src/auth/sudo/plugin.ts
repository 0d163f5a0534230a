import { definePlugin } from '../../plugin.ts';
import { sudoRoutes } from './routes.ts';
import { sudoFactorsFor } from './eligible.ts';
import { grantSudo } from './state.ts';

/** Step-up (sudo) mode for sensitive operations. */
export const sudoPlugin = definePlugin({
  name: 'sudo',
  routes: sudoRoutes,
  events: {
    // A user with nothing to prove (for example social-only, no password) is elevated at sign-in.
    async signedIn(request, user) {
      if ((await sudoFactorsFor(request, user)).length === 0) grantSudo(request, user.id);
    },
  },
});
