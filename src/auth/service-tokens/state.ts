import type { CitadelServices } from '../../http/fastify-types.ts';
import { KeyRing } from './keys.ts';
import { ServiceTokenVerifier, type ServiceTokenSettings } from './jwt.ts';

/** One server's service-token machinery: its key ring (keys cached in memory) and verifier. */
export interface ServiceTokenState {
  settings: ServiceTokenSettings;
  ring: KeyRing;
  verifier: ServiceTokenVerifier;
}

/** The options of `serviceTokens()`. */
export interface ServiceTokenOptions {
  /** Lifetime of a service token in seconds (default 900). */
  ttlSeconds?: number;
  /** `aud` of the tokens (default: `JWT_AUDIENCE`, else APP_URL). */
  audience?: string;
  /** `iss` of the tokens (default: APP_URL). */
  issuer?: string;
}

/**
 * The state of each server, made on first use. Keyed by its database handle: the services object a
 * handler sees is its route scope's (a Fastify child instance), the bearer verifier sees the root.
 */
export function stateRegistry(options: ServiceTokenOptions) {
  const states = new WeakMap<object, ServiceTokenState>();
  return (services: CitadelServices): ServiceTokenState => {
    let state = states.get(services.db);
    if (!state) {
      const { config, db, clock, secrets } = services;
      const settings: ServiceTokenSettings = {
        issuer: options.issuer ?? config.appUrl,
        audience: options.audience ?? (config.env.JWT_AUDIENCE || config.appUrl),
        ttlSeconds: options.ttlSeconds ?? 900,
      };
      const ring = new KeyRing(db, clock, secrets, settings.ttlSeconds);
      state = { settings, ring, verifier: new ServiceTokenVerifier(db, ring, settings) };
      states.set(services.db, state);
    }
    return state;
  };
}
