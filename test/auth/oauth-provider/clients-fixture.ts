import { startTestApp, type TestApp, type TestAppOptions } from '../../support/app.ts';
import type { TestClient } from '../../support/client.ts';
import { elevate } from '../../support/sudo.ts';
import { grantAdminRole } from '../../../src/auth/core/roles.ts';
import { defaultPlugins } from '../../../src/auth/index.ts';
import { oauthProvider } from '../../../src/auth/oauth-provider/plugin.ts';
import type { OAuthProviderOptions } from '../../../src/auth/oauth-provider/options.ts';

/** A test app with the OAuth provider (dynamic registration on unless told otherwise). */
export function startOAuthApp(
  options: Partial<OAuthProviderOptions> = {},
  appOptions: TestAppOptions = {},
): Promise<TestApp> {
  return startTestApp({
    plugins: [...defaultPlugins(), oauthProvider({ dynamicRegistration: true, ...options })],
    ...appOptions,
  });
}

/** A signed-in administrator in sudo mode. */
export async function adminClient(t: TestApp): Promise<TestClient> {
  const user = await t.createUser();
  await grantAdminRole(t.services.db, user.email);
  const client = await t.signIn(user);
  await elevate(client);
  return client;
}

/** Client metadata an administrator registers (a confidential web client). */
export function webClientMetadata(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    client_name: 'Example App',
    redirect_uris: ['https://app.example.com/callback'],
    token_endpoint_auth_method: 'client_secret_basic',
    scope: 'openid profile email offline_access',
    ...overrides,
  };
}
