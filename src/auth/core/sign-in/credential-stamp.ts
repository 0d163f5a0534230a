import type { CitadelServices } from '../services.ts';
import type { UserRecord } from '../users.ts';

/**
 * A keyed fingerprint of the user's password as it was when a sign-in began. A reset or a password
 * change gives another one, which voids every pending context begun before it: a
 * sign-in started with the old password cannot be finished with a second factor afterwards.
 */
export function credentialStamp(services: CitadelServices, user: UserRecord): string {
  return services.secrets.hmac('pending-credential', user.password_hash ?? '').slice(0, 32);
}
