import { type CitadelConfig, type CitadelServices, checkInteger, pluginOptions } from '../../plugin-api.ts';

/** The service-tokens plugin's id. */
export const SERVICE_TOKENS_ID = 'service-tokens';

/** `serviceTokens(options)`: every field optional, the defaults below fill the rest. */
export interface ServiceTokensOptions {
  /** Lifetime of a service token in seconds (default 900). */
  ttlSeconds: number;
  /** `aud` of the tokens (default: `JWT_AUDIENCE`, else APP_URL; filled in at start-up). */
  audience?: string;
  /** `iss` of the tokens (default: APP_URL; filled in at start-up). */
  issuer?: string;
}

export const serviceTokensDefaults: Readonly<ServiceTokensOptions> = { ttlSeconds: 15 * 60 };

/** Given options over the environment (`JWT_AUDIENCE`, APP_URL) over the defaults. */
export function resolveServiceTokensOptions(
  given: Partial<ServiceTokensOptions>,
  config: CitadelConfig,
): Required<ServiceTokensOptions> {
  return {
    ttlSeconds: checkInteger(
      'serviceTokens',
      'ttlSeconds',
      given.ttlSeconds ?? serviceTokensDefaults.ttlSeconds,
      1,
    ),
    audience: given.audience ?? (config.env.JWT_AUDIENCE || config.appUrl),
    issuer: given.issuer ?? config.appUrl,
  };
}

/** The options the service-tokens plugin runs with (audience and issuer resolved). */
export function serviceTokensOptions(services: CitadelServices): Required<ServiceTokensOptions> {
  return (
    pluginOptions<Required<ServiceTokensOptions>>(services, SERVICE_TOKENS_ID) ??
    resolveServiceTokensOptions({}, services.config)
  );
}
