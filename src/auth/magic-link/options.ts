import { type CitadelConfig, type CitadelServices, checkInteger, pluginOptions } from '../../plugin-api.ts';

/** The magic-link plugin's id. */
export const MAGIC_LINK_ID = 'magic-link';

/** `magicLink(options)`: every field optional, the defaults below fill the rest. */
export interface MagicLinkOptions {
  /** How long an emailed sign-in link works, in seconds (default 900, 15 minutes). */
  ttlSeconds: number;
}

export const magicLinkDefaults: Readonly<MagicLinkOptions> = { ttlSeconds: 15 * 60 };

/** Given options over the default. */
export function resolveMagicLinkOptions(
  given: Partial<MagicLinkOptions>,
  _config: CitadelConfig,
): MagicLinkOptions {
  const ttlSeconds = given.ttlSeconds ?? magicLinkDefaults.ttlSeconds;
  return { ttlSeconds: checkInteger('magicLink', 'ttlSeconds', ttlSeconds, 1) };
}

/** The options the magic-link plugin runs with. */
export function magicLinkOptions(services: CitadelServices): MagicLinkOptions {
  return pluginOptions<MagicLinkOptions>(services, MAGIC_LINK_ID) ?? magicLinkDefaults;
}
