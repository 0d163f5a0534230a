import { definePlugin, givenOptions } from '../../plugin-api.ts';
import { socialEndpoints } from './routes.ts';
import { socialMigration } from './migrations.ts';
import { socialMessages } from './messages/index.ts';
import { SOCIAL_ID, resolveSocialOptions, socialDefaults, type SocialOptions } from './options.ts';

/**
 * Social sign-in through OAuth 2.0 / OpenID Connect providers:
 * `social({ providers: [{ id: 'acme', clientId, clientSecret, issuer, label: 'Acme', scopes: [] }] })`.
 */
export function social(options: Partial<SocialOptions> = {}) {
  return definePlugin({
    id: SOCIAL_ID,
    options: { ...socialDefaults, ...givenOptions(options) },
    resolveOptions: (config) => resolveSocialOptions(options, config),
    migrations: [socialMigration],
    tables: ['oauth_identities'],
    endpoints: socialEndpoints,
    messages: socialMessages,
  });
}
