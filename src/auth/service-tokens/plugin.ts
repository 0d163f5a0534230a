import { definePlugin, givenOptions, jwsHeaderTyp, provideSigningKeys } from '../../plugin-api.ts';
import { serviceTokenKeysMigration } from './migrations.ts';
import { serviceTokenEndpoints } from './routes.ts';
import { isServiceTokenTyp, looksLikeJwt } from './jwt.ts';
import { serviceTokenState } from './state.ts';
import {
  SERVICE_TOKENS_ID,
  resolveServiceTokensOptions,
  serviceTokensDefaults,
  type ServiceTokensOptions,
} from './options.ts';
import { serviceTokensMessages } from './messages/index.ts';

/**
 * Service tokens: `POST /token` mints a short-lived JWT (EdDSA, Ed25519) for
 * the caller, `GET /.well-known/jwks.json` publishes the keys that verify it, and the JWT is
 * accepted as a bearer token by `GET /me`, the other endpoints and the resource API without
 * reading the session. Keys live in the database, private keys sealed with the session secret;
 * `citadel keys:rotate` adds one. `serviceTokens({ ttlSeconds: 300 })`.
 */
export function serviceTokens(options: Partial<ServiceTokensOptions> = {}) {
  return definePlugin({
    id: SERVICE_TOKENS_ID,
    messages: serviceTokensMessages,
    options: { ...serviceTokensDefaults, ...givenOptions(options) },
    resolveOptions: (config) => resolveServiceTokensOptions(options, config),
    migrations: [serviceTokenKeysMigration],
    tables: ['service_token_keys'],
    endpoints: serviceTokenEndpoints,
    // The one key set of the server: other plugins (the OAuth provider) sign with it too.
    init: ({ services }) => provideSigningKeys(services, serviceTokenState(services).ring),
    hooks: {
      bearer: (token, services) =>
        looksLikeJwt(token) && isServiceTokenTyp(jwsHeaderTyp(token))
          ? serviceTokenState(services).verifier.caller(token, services.clock.now())
          : undefined,
    },
  });
}
