import { definePlugin } from '../../plugin.ts';
import { passwordEndpoints } from './routes.ts';

/** Setting or changing the password of a signed-in account. */
export const passwordPlugin = definePlugin({
  name: 'password',
  // Replacing a password (or setting one beside a factor) needs sudo.
  dependencies: ['sudo'],
  endpoints: passwordEndpoints,
});
