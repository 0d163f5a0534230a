import { definePlugin } from '../../plugin-api.ts';
import { passwordEndpoints } from './routes.ts';
import { passwordMessages } from './messages/index.ts';

/** `password()` takes no options (the password length limits are the core's `limits`). */
export type PasswordOptions = Record<string, never>;

/** Setting or changing the password of a signed-in account: `password()`. */
export function password(options: PasswordOptions = {}) {
  return definePlugin({
    id: 'password',
    // Replacing a password (or setting one beside a factor) needs sudo.
    dependencies: ['sudo'],
    options,
    endpoints: passwordEndpoints,
    messages: passwordMessages,
  });
}
