import { isIP } from 'node:net';
import { ConfigError } from '../core/errors.ts';

/**
 * Which proxies may tell Citadel the client address. Never "trust everything": then
 * the left-most X-Forwarded-For entry, written by the client, would become its address and every
 * per-IP limit would be void. Either the number of proxy hops in front of Citadel (`1`: the client
 * address is the right-most entry) or the proxies' own addresses and CIDR ranges; the client
 * address is then the right-most entry that is not one of them. `false`: X-Forwarded-For is ignored.
 */
export type TrustProxy = false | number | string[];

function isAddressOrRange(entry: string): boolean {
  const slash = entry.indexOf('/');
  if (slash === -1) return isIP(entry) !== 0;
  const family = isIP(entry.slice(0, slash));
  const bits = entry.slice(slash + 1);
  if (family === 0 || !/^[0-9]{1,3}$/.test(bits)) return false;
  return Number(bits) <= (family === 4 ? 32 : 128);
}

/** TRUST_PROXY (or the `trustProxy` option): a hop count, or a comma-separated list of addresses/CIDRs. */
export function parseTrustProxy(
  value: boolean | number | string | readonly string[] | undefined,
): TrustProxy {
  if (value === undefined || value === false || value === '' || value === '0' || value === 0) return false;
  // The old boolean option meant "behind a proxy": one hop, not everything.
  if (value === true) return 1;
  if (typeof value === 'number') {
    if (Number.isInteger(value) && value > 0 && value <= 32) return value;
    throw new ConfigError(`TRUST_PROXY must be a hop count from 1 to 32 or proxy addresses, got ${value}`);
  }
  if (typeof value === 'string' && /^[0-9]+$/.test(value.trim())) return parseTrustProxy(Number(value));
  const entries = (typeof value === 'string' ? value.split(',') : [...value]).map((e) => e.trim());
  const bad = entries.find((entry) => !isAddressOrRange(entry));
  if (bad !== undefined) {
    throw new ConfigError(
      `TRUST_PROXY must be a hop count or comma-separated proxy addresses/CIDRs, got "${bad}"`,
    );
  }
  return entries;
}

/**
 * Fastify's form of the setting: a hop count as a trust function (as Fastify builds one for a
 * number: the socket address is hop 0), an address list as it is.
 */
export function fastifyTrustProxy(
  trust: TrustProxy,
): false | string[] | ((address: string, hop: number) => boolean) {
  if (typeof trust !== 'number') return trust;
  return (_address, hop) => hop < trust;
}
