import { type CitadelConfig, type CitadelServices, checkInteger, pluginOptions } from '../../plugin-api.ts';

/** The factors plugin's id. */
export const FACTORS_ID = 'factors';

/** `factors(options)`: every field optional, the defaults below fill the rest. */
export interface FactorsOptions {
  /**
   * Every sign-in of a user without a second factor enrolls one first (`two_factor_enroll`), and
   * the last factor cannot be removed (default false; REQUIRE_TWO_FACTOR=1).
   */
  requireTwoFactor: boolean;
  /** Wrong codes per user per window when confirming a new factor, before 429 (default 5). */
  confirmMaxFailures: number;
  /** The window of `confirmMaxFailures`, in seconds (default 900). */
  confirmFailureWindowSeconds: number;
}

export const factorsDefaults: Readonly<FactorsOptions> = {
  requireTwoFactor: false,
  confirmMaxFailures: 5,
  confirmFailureWindowSeconds: 15 * 60,
};

/** Given options, then REQUIRE_TWO_FACTOR=1 for `requireTwoFactor`, then the defaults. */
export function resolveFactorsOptions(given: Partial<FactorsOptions>, config: CitadelConfig): FactorsOptions {
  return {
    requireTwoFactor: given.requireTwoFactor ?? config.env.REQUIRE_TWO_FACTOR === '1',
    confirmMaxFailures: checkInteger(
      'factors',
      'confirmMaxFailures',
      given.confirmMaxFailures ?? factorsDefaults.confirmMaxFailures,
      1,
    ),
    confirmFailureWindowSeconds: checkInteger(
      'factors',
      'confirmFailureWindowSeconds',
      given.confirmFailureWindowSeconds ?? factorsDefaults.confirmFailureWindowSeconds,
      1,
    ),
  };
}

/** The options the factors plugin runs with. */
export function factorsOptions(services: CitadelServices): FactorsOptions {
  return pluginOptions<FactorsOptions>(services, FACTORS_ID) ?? factorsDefaults;
}
