import { definePlugin, givenOptions } from '../../plugin-api.ts';
import { oauthProviderMigration } from './migration.ts';
import { OAUTH_PROVIDER_TABLES } from './tables.ts';
import { adminClientEndpoints } from './admin-clients.ts';
import { registrationEndpoints } from './registration.ts';
import { ACCOUNT_APPS_EVENTS, accountAppsEndpoints } from './account-apps.ts';
import { oauthProviderMessages } from './messages/index.ts';
import { initResourceServer, resourceEndpoints } from './protected-resource.ts';
import { accessTokenBearer } from './resource-bearer.ts';
import { discoveryEndpoints } from './discovery.ts';
import { authorizeEndpoints } from './authorize.ts';
import { tokenEndpoints } from './token.ts';
import { userinfoEndpoints } from './userinfo.ts';
import { revokeEndpoints } from './revoke.ts';
import { introspectEndpoints } from './introspect.ts';
import { endSessionEndpoints } from './end-session.ts';
import { endPendingOnSignOut, noteSignIn } from './sign-in-hooks.ts';
import { offerLoginHint } from './login-hint.ts';
import { allowClientRedirect } from './form-targets.ts';
import {
  OAUTH_PROVIDER_ID,
  oauthProviderDefaults,
  resolveOAuthProviderOptions,
  type OAuthProviderOptions,
} from './options.ts';

/**
 * OAuth 2.1 authorization server and OpenID Provider: other applications and MCP clients sign
 * their users in with Citadel (`oauthProvider({ dynamicRegistration: true })`).
 */
export function oauthProvider(options: Partial<OAuthProviderOptions> = {}) {
  return definePlugin({
    id: OAUTH_PROVIDER_ID,
    // Its keys are the server's one key set, which the service tokens keep (and the JWKS publishes).
    dependencies: ['service-tokens'],
    options: { ...oauthProviderDefaults, ...givenOptions(options) },
    resolveOptions: (config) => resolveOAuthProviderOptions(options, config),
    migrations: [oauthProviderMigration],
    tables: OAUTH_PROVIDER_TABLES,
    endpoints: [
      ...discoveryEndpoints,
      ...authorizeEndpoints,
      ...tokenEndpoints,
      ...userinfoEndpoints,
      ...revokeEndpoints,
      ...introspectEndpoints,
      ...endSessionEndpoints,
      ...adminClientEndpoints,
      ...accountAppsEndpoints,
      ...resourceEndpoints,
      ...(options.dynamicRegistration ? registrationEndpoints : []),
    ],
    events: [...ACCOUNT_APPS_EVENTS],
    messages: oauthProviderMessages,
    hooks: {
      // `at+jwt` bearer tokens: the resource API accepts access tokens issued for it.
      bearer: accessTokenBearer,
      // Each sign-in: when and how (auth_time, amr), and back to a waiting authorization.
      signedIn: noteSignIn,
      // Pages of a browser with a waiting authorization may send forms on to its client.
      request: allowClientRedirect,
      after: [
        { match: { action: 'logout' }, handler: endPendingOnSignOut },
        // The sign-in page prefills its identifier with the waiting authorization's login_hint.
        { match: { action: 'login.show' }, handler: offerLoginHint },
      ],
    },
    init: ({ services }) => initResourceServer(services),
  });
}
