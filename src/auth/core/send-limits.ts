import type { EndpointRateLimit, RateLimitInput } from './endpoint.ts';
import { normalizeEmail } from './users.ts';

/**
 * Email-sending endpoints (registration, forgot-password, magic link): at most `sendsPerAddress`
 * per address and `sendsPerIp` per IP in `sendWindow`, as declared rate limits of an endpoint whose
 * body has `email`: per client address, and per (valid) address. Counted before anything else
 * happens, so the answer (429 or not) does not depend on whether the address has an account.
 * `countInvalid: false` counts nothing for a request whose input is refused (forgot-password);
 * registration counts invalid attempts too, before any lookup.
 */
export function emailSendLimits(kind: string, options: { countInvalid: boolean }): EndpointRateLimit[] {
  const counted = (input: RateLimitInput) => options.countInvalid || Object.keys(input.errors).length === 0;
  return [
    {
      name: `send:${kind}:ip`,
      max: ({ config }) => config.limits.sendsPerIp,
      windowSeconds: ({ config }) => config.limits.sendWindow,
      per: (input) => (counted(input) ? input.ip : undefined),
    },
    {
      name: `send:${kind}:address`,
      max: ({ config }) => config.limits.sendsPerAddress,
      windowSeconds: ({ config }) => config.limits.sendWindow,
      per: (input) =>
        counted(input) && !input.errors.email && typeof input.body.email === 'string'
          ? normalizeEmail(input.body.email)
          : undefined,
    },
  ];
}
