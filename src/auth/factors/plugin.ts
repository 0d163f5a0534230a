import { definePlugin } from '../../plugin.ts';
import { twoFactorEndpoints } from './routes.ts';
import { passkeyLoginEndpoints } from './passkey-login.ts';
import { passkeyAssets } from './assets.ts';
import { factorsMigration } from './migrations.ts';
import { twoFactorAction } from './action.ts';
import { recoveryCodesAction, twoFactorEnrollAction } from './enroll-action.ts';
import { builtInFactors } from './registry.ts';
import { factorFacts } from './registry.ts';

/** TOTP, passkeys and recovery codes: their settings pages and the automatic `two_factor` step. */
export const factorsPlugin = definePlugin({
  name: 'factors',
  // Its `two_factor` step runs in the pipeline; enrolling and removing a factor need sudo.
  dependencies: ['pipeline', 'sudo'],
  migrations: [factorsMigration],
  endpoints: [...passkeyLoginEndpoints, ...twoFactorEndpoints],
  // The passkey pages' browser scripts (JavaScript files, not auth endpoints).
  routes: passkeyAssets,
  // The automatic steps, in this order: `two_factor`, then (when two-factor is required)
  // `two_factor_enroll` and the new recovery codes.
  actions: [twoFactorAction, twoFactorEnrollAction, recoveryCodesAction],
  factors: builtInFactors,
  signInFacts: factorFacts,
});
