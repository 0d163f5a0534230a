import {
  type CitadelConfig,
  type CitadelServices,
  checkInteger,
  envInteger,
  pluginOptions,
} from '../../plugin-api.ts';

/** The sudo plugin's id. */
export const SUDO_ID = 'sudo';

/** `sudo(options)`: every field optional, the defaults below fill the rest. */
export interface SudoOptions {
  /** The sudo grace period in seconds (default 900; SUDO_TTL). */
  ttlSeconds: number;
  /** Wrong proofs per user per window before the next is refused with 429 (default 5). */
  maxFailures: number;
  /** The window of `maxFailures`, in seconds (default 900). */
  failureWindowSeconds: number;
}

export const sudoDefaults: Readonly<SudoOptions> = {
  ttlSeconds: 900,
  maxFailures: 5,
  failureWindowSeconds: 15 * 60,
};

/** Given options, then SUDO_TTL for `ttlSeconds`, then the defaults. */
export function resolveSudoOptions(given: Partial<SudoOptions>, config: CitadelConfig): SudoOptions {
  const ttlSeconds = given.ttlSeconds ?? envInteger(config.env, 'SUDO_TTL', 1) ?? sudoDefaults.ttlSeconds;
  return {
    ttlSeconds: checkInteger('sudo', 'ttlSeconds', ttlSeconds, 1),
    maxFailures: checkInteger('sudo', 'maxFailures', given.maxFailures ?? sudoDefaults.maxFailures, 1),
    failureWindowSeconds: checkInteger(
      'sudo',
      'failureWindowSeconds',
      given.failureWindowSeconds ?? sudoDefaults.failureWindowSeconds,
      1,
    ),
  };
}

/** The options the sudo plugin runs with. */
export function sudoOptions(services: CitadelServices): SudoOptions {
  return pluginOptions<SudoOptions>(services, SUDO_ID) ?? sudoDefaults;
}
