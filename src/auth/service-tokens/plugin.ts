import { definePlugin } from '../../plugin.ts';
import { serviceTokenKeysMigration } from './migrations.ts';
import { serviceTokenEndpoints } from './routes.ts';
import { looksLikeJwt } from './jwt.ts';
import { stateRegistry, type ServiceTokenOptions } from './state.ts';

export type { ServiceTokenOptions } from './state.ts';

/**
 * Service tokens (contract section 18): `POST /token` mints a short-lived JWT (EdDSA, Ed25519) for
 * the caller, `GET /.well-known/jwks.json` publishes the keys that verify it, and the JWT is
 * accepted as a bearer token by `GET /me`, the other endpoints and the resource API without
 * reading the session. Keys live in the database, private keys sealed with the session secret;
 * `citadel keys:rotate` adds one.
 */
export function serviceTokens(options: ServiceTokenOptions = {}) {
  if (options.ttlSeconds !== undefined && (!Number.isInteger(options.ttlSeconds) || options.ttlSeconds < 1))
    throw new TypeError('serviceTokens: ttlSeconds must be a whole number of seconds, at least 1');
  const stateOf = stateRegistry(options);
  return definePlugin({
    name: 'service-tokens',
    options,
    migrations: [serviceTokenKeysMigration],
    endpoints: serviceTokenEndpoints(stateOf),
    bearer: (token, services) =>
      looksLikeJwt(token) ? stateOf(services).verifier.caller(token, services.clock.now()) : undefined,
  });
}
