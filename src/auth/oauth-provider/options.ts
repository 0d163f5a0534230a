import { type CitadelConfig, type CitadelServices, checkInteger, pluginOptions } from '../../plugin-api.ts';

/** The OAuth provider plugin's id. */
export const OAUTH_PROVIDER_ID = 'oauth-provider';

/** `oauthProvider(options)`: every field optional, the defaults below fill the rest. */
export interface OAuthProviderOptions {
  /** `POST /oauth2/register` (RFC 7591) registers public clients (default false). */
  dynamicRegistration: boolean;
  /** Registrations per IP per window (default 10 per 3600 s). */
  registrationLimit: { max: number; windowSeconds: number };
  /** Lifetime of an access token, seconds (default 600). */
  accessTokenTtlSeconds: number;
  /** Lifetime of a refresh token, seconds (default 30 days). */
  refreshTokenTtlSeconds: number;
  /** Lifetime of an authorization code, seconds (default 60). */
  codeTtlSeconds: number;
  /** How long a pending authorization waits for its browser to sign in and consent (default 600). */
  pendingTtlSeconds: number;
  /** `iss` of every token and the metadata (default: APP_URL; never a forwarded header). */
  issuer?: string;
  /** The resource API's identifier, the `aud` of its access tokens (default: APP_URL + API base path). */
  resourceIdentifier?: string;
}

export type ResolvedOAuthProviderOptions = Required<OAuthProviderOptions>;

export const oauthProviderDefaults: Readonly<OAuthProviderOptions> = {
  dynamicRegistration: false,
  registrationLimit: { max: 10, windowSeconds: 3600 },
  accessTokenTtlSeconds: 600,
  refreshTokenTtlSeconds: 30 * 24 * 3600,
  codeTtlSeconds: 60,
  pendingTtlSeconds: 600,
};

/** Given options over the configuration over the defaults. */
export function resolveOAuthProviderOptions(
  given: Partial<OAuthProviderOptions>,
  config: CitadelConfig,
): ResolvedOAuthProviderOptions {
  const merged = { ...oauthProviderDefaults, ...given };
  const name = 'oauthProvider';
  const issuer = (given.issuer ?? config.appUrl).replace(/\/+$/, '');
  return {
    dynamicRegistration: merged.dynamicRegistration === true,
    registrationLimit: {
      max: checkInteger(name, 'registrationLimit.max', merged.registrationLimit.max, 1),
      windowSeconds: checkInteger(
        name,
        'registrationLimit.windowSeconds',
        merged.registrationLimit.windowSeconds,
        1,
      ),
    },
    accessTokenTtlSeconds: checkInteger(name, 'accessTokenTtlSeconds', merged.accessTokenTtlSeconds, 1),
    refreshTokenTtlSeconds: checkInteger(name, 'refreshTokenTtlSeconds', merged.refreshTokenTtlSeconds, 1),
    codeTtlSeconds: checkInteger(name, 'codeTtlSeconds', merged.codeTtlSeconds, 1),
    pendingTtlSeconds: checkInteger(name, 'pendingTtlSeconds', merged.pendingTtlSeconds, 1),
    issuer,
    resourceIdentifier: given.resourceIdentifier ?? `${issuer}${config.api?.apiBaseUrl ?? '/api'}`,
  };
}

/** The options the OAuth provider runs with. */
export function oauthProviderOptions(services: CitadelServices): ResolvedOAuthProviderOptions {
  return (
    pluginOptions<ResolvedOAuthProviderOptions>(services, OAUTH_PROVIDER_ID) ??
    resolveOAuthProviderOptions({}, services.config)
  );
}
