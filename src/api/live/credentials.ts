import type { FastifyRequest } from 'fastify';
import { sha256Hex } from '../../core/crypto.ts';
import { bearerCaller } from '../../auth/core/caller.ts';
import { isDisabled } from '../../auth/core/users.ts';
import type { CitadelServices } from '../../auth/core/services.ts';
import { SESSION_COOKIE } from '../../http/sessions/plugin.ts';

/**
 * The credential a stream was opened with, checked again while the stream lasts: a session that
 * ends (sign-out, revocation, expiry, the account disabled) or a bearer token that no longer
 * verifies (a revoked personal access token, a disabled account) ends its streams. Streams that
 * share a credential share its check.
 */
export interface StreamCredential {
  /** One key per credential (a hash: never the secret itself). */
  key: string;
  userId: number;
  /** Whether the credential still names this user. */
  check(services: CitadelServices): Promise<boolean>;
  /** A fixed end (a service token's expiry), ISO 8601, or null. */
  expiresAt: string | null;
}

/** The credential of a live request's caller, or null for an anonymous caller. */
export function credentialOf(request: FastifyRequest): StreamCredential | null {
  const caller = request.caller;
  if (!caller) return null;
  const userId = caller.user.id;
  const header = request.headers.authorization;
  if (caller.via !== 'session' && header !== undefined) {
    return {
      key: `bearer ${sha256Hex(header)}`,
      userId,
      expiresAt: caller.via === 'bearer' ? caller.credential.expiresAt : caller.token.expires_at,
      async check(services) {
        try {
          return (await bearerCaller(services, header)).user.id === userId;
        } catch {
          return false;
        }
      },
    };
  }
  const raw = request.cookies[SESSION_COOKIE];
  if (caller.via !== 'session' || !raw) return null;
  const idHash = sha256Hex(raw);
  return {
    key: `session ${idHash}`,
    userId,
    expiresAt: null,
    async check(services) {
      const stored = await services.sessions.load(idHash);
      if (!stored || stored.userId !== userId) return false;
      const user = await services.users.findById(userId);
      if (!user || user.active !== 1) return false;
      return user.disabled_at === null || !isDisabled(user, services.clock.now().toISOString());
    },
  };
}
