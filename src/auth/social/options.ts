import {
  type CitadelConfig,
  type OAuthProviderConfig,
  type CitadelServices,
  ConfigError,
  pluginOptions,
} from '../../plugin-api.ts';

/** The social plugin's id. */
export const SOCIAL_ID = 'social';

/** `social(options)`: the sign-in providers. */
export interface SocialOptions {
  /**
   * The OAuth 2.0 / OpenID Connect providers, in the order the sign-in page shows them. Default:
   * those of OAUTH_PROVIDERS and OAUTH_<ID>_* (none when unset).
   */
  providers: OAuthProviderConfig[];
}

export const socialDefaults: Readonly<SocialOptions> = { providers: [] };

const PROVIDER_PRESETS: Record<string, Partial<OAuthProviderConfig>> = {
  github: {
    label: 'GitHub',
    authorizationUrl: 'https://github.com/login/oauth/authorize',
    tokenUrl: 'https://github.com/login/oauth/access_token',
    userinfoUrl: 'https://api.github.com/user',
    scopes: ['read:user', 'user:email'],
  },
  google: { label: 'Google', issuer: 'https://accounts.google.com', scopes: ['openid', 'email', 'profile'] },
};

function list(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

function providersFromEnv(env: Record<string, string | undefined>): OAuthProviderConfig[] {
  return list(env.OAUTH_PROVIDERS).map((id) => {
    if (!/^[a-z0-9_-]+$/.test(id)) throw new ConfigError(`OAUTH_PROVIDERS: invalid provider id "${id}"`);
    const prefix = `OAUTH_${id.toUpperCase().replace(/-/g, '_')}_`;
    const preset = PROVIDER_PRESETS[id] ?? {};
    const clientId = env[`${prefix}CLIENT_ID`];
    const clientSecret = env[`${prefix}CLIENT_SECRET`];
    if (!clientId || !clientSecret) {
      throw new ConfigError(
        `${prefix}CLIENT_ID and ${prefix}CLIENT_SECRET are required for provider "${id}"`,
      );
    }
    const provider: OAuthProviderConfig = {
      id,
      clientId,
      clientSecret,
      label: preset.label ?? id.charAt(0).toUpperCase() + id.slice(1),
      issuer: env[`${prefix}ISSUER`] ?? preset.issuer,
      authorizationUrl: env[`${prefix}AUTHORIZATION_URL`] ?? preset.authorizationUrl,
      tokenUrl: env[`${prefix}TOKEN_URL`] ?? preset.tokenUrl,
      userinfoUrl: env[`${prefix}USERINFO_URL`] ?? preset.userinfoUrl,
      scopes: env[`${prefix}SCOPES`]
        ? list(env[`${prefix}SCOPES`]?.replace(/ /g, ','))
        : (preset.scopes ?? []),
      tokenEndpointAuth: tokenEndpointAuth(prefix, env[`${prefix}TOKEN_AUTH`]),
    };
    validateProvider(provider);
    return provider;
  });
}

function tokenEndpointAuth(
  prefix: string,
  value: string | undefined,
): OAuthProviderConfig['tokenEndpointAuth'] {
  if (value === undefined || value === '') return 'client_secret_basic';
  if (value === 'client_secret_basic' || value === 'client_secret_post') return value;
  throw new ConfigError(
    `${prefix}TOKEN_AUTH must be client_secret_basic or client_secret_post, got "${value}"`,
  );
}

function validateProvider(p: OAuthProviderConfig): void {
  if (!p.issuer && !(p.authorizationUrl && p.tokenUrl)) {
    throw new ConfigError(
      `OAuth provider "${p.id}" needs an issuer (OpenID Connect) or authorization and token URLs`,
    );
  }
  if (p.scopes.length === 0) p.scopes = p.issuer ? ['openid', 'email', 'profile'] : [];
}

/**
 * Given providers, else OAUTH_PROVIDERS and OAUTH_<ID>_*; each one checked (an issuer, or
 * authorization and token URLs).
 */
export function resolveSocialOptions(given: Partial<SocialOptions>, config: CitadelConfig): SocialOptions {
  const providers = given.providers
    ? given.providers.map((provider) => ({ ...provider, scopes: [...provider.scopes] }))
    : providersFromEnv(config.env);
  const ids = new Set<string>();
  for (const provider of providers) {
    if (ids.has(provider.id)) throw new ConfigError(`social: two providers have the id "${provider.id}"`);
    ids.add(provider.id);
    validateProvider(provider);
  }
  return { providers };
}

/** The options the social plugin runs with. */
export function socialOptions(services: CitadelServices): SocialOptions {
  return pluginOptions<SocialOptions>(services, SOCIAL_ID) ?? socialDefaults;
}
