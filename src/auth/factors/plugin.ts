import { definePlugin, givenOptions } from '../../plugin-api.ts';
import { twoFactorEndpoints } from './routes.ts';
import { passkeyLoginEndpoints } from './passkey-login.ts';
import { passkeyAssets } from './assets.ts';
import { factorsMessages } from './messages/index.ts';
import { factorsMigration } from './migrations.ts';
import { twoFactorAction } from './action.ts';
import { recoveryCodesAction, twoFactorEnrollAction } from './enroll-action.ts';
import { builtInFactors } from './registry.ts';
import { factorFacts } from './registry.ts';
import { FACTOR_ERROR_CODES, FACTOR_EVENTS } from './events.ts';
import { FACTORS_ID, factorsDefaults, resolveFactorsOptions, type FactorsOptions } from './options.ts';

/**
 * TOTP, passkeys and recovery codes: their settings pages and the automatic `two_factor` step
 * (`factors({ requireTwoFactor: true })`).
 */
export function factors(options: Partial<FactorsOptions> = {}) {
  return definePlugin({
    id: FACTORS_ID,
    // Its `two_factor` step runs in the pipeline; enrolling and removing a factor need sudo.
    dependencies: ['pipeline', 'sudo'],
    options: { ...factorsDefaults, ...givenOptions(options) },
    resolveOptions: (config) => resolveFactorsOptions(options, config),
    migrations: [factorsMigration],
    tables: ['totp_factors', 'passkeys', 'recovery_codes'],
    endpoints: [...passkeyLoginEndpoints, ...twoFactorEndpoints] as const,
    // The passkey pages' browser scripts (JavaScript files, not auth endpoints).
    assets: passkeyAssets(),
    // The automatic steps, in this order: `two_factor`, then (when two-factor is required)
    // `two_factor_enroll` and the new recovery codes.
    actions: [twoFactorAction, twoFactorEnrollAction, recoveryCodesAction],
    factors: builtInFactors,
    hooks: { signInFacts: factorFacts },
    events: FACTOR_EVENTS,
    errorCodes: FACTOR_ERROR_CODES,
    messages: factorsMessages,
  });
}
