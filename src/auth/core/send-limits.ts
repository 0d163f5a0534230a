import type { FastifyRequest } from 'fastify';
import { normalizeEmail } from './users.ts';

/**
 * Email-sending endpoints (registration, forgot-password, magic link): at most `sendsPerAddress`
 * per address and `sendsPerIp` per IP in `sendWindow`. Counted before anything else happens, so the
 * answer (429 or not) does not depend on whether the address has an account.
 */
export async function limitEmailSends(
  request: FastifyRequest,
  kind: string,
  email: string | undefined,
): Promise<void> {
  const { rateLimiter, config } = request.server;
  const { sendsPerAddress, sendsPerIp, sendWindow } = config.limits;
  await rateLimiter.consume(`send:${kind}:ip:${request.ip}`, sendsPerIp, sendWindow);
  if (email)
    await rateLimiter.consume(`send:${kind}:address:${normalizeEmail(email)}`, sendsPerAddress, sendWindow);
}
