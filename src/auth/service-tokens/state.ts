import { type CitadelServices, signingLifetime } from '../../plugin-api.ts';
import { KeyRing } from './keys.ts';
import { ServiceTokenVerifier, type ServiceTokenSettings } from './jwt.ts';
import { serviceTokensOptions } from './options.ts';

/** One server's service-token machinery: its key ring (keys cached in memory) and verifier. */
export interface ServiceTokenState {
  settings: ServiceTokenSettings;
  ring: KeyRing;
  verifier: ServiceTokenVerifier;
}

const states = new WeakMap<CitadelServices, ServiceTokenState>();

/** The state of a server (its services object), made on first use from the plugin's options. */
export function serviceTokenState(services: CitadelServices): ServiceTokenState {
  let state = states.get(services);
  if (!state) {
    const { db, clock, secrets } = services;
    const { issuer, audience, ttlSeconds } = serviceTokensOptions(services);
    const settings: ServiceTokenSettings = { issuer, audience, ttlSeconds };
    // Retired keys stay published past the longest token signed with them (OAuth tokens too).
    const ring = new KeyRing(db, clock, secrets, () => Math.max(ttlSeconds, signingLifetime(services)));
    const verifier = new ServiceTokenVerifier(db, ring, settings);
    // A change of a user in this process stops its service tokens at once (disable, deletion…).
    services.users.onChange((userId) => verifier.users.forget(userId));
    state = { settings, ring, verifier };
    states.set(services, state);
  }
  return state;
}
