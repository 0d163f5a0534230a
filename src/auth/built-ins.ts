/**
 * The built-in plugins' factories and their options' types. Only factories are values here:
 * `defaultPlugins()` reads this module's namespace as the map from key to factory, and
 * `BUILT_IN_PLUGIN_KEYS` (src/auth/index.ts) gives their registration order.
 */
export { accounts } from './accounts/plugin.ts';
export { tokens } from './tokens/plugin.ts';
export { social } from './social/plugin.ts';
export { password } from './password/plugin.ts';
export { pipeline } from './pipeline/plugin.ts';
export { magicLink } from './magic-link/plugin.ts';
export { factors } from './factors/plugin.ts';
export { sudo } from './sudo/plugin.ts';
export { accountCenter } from './account-center/plugin.ts';
export { serviceTokens } from './service-tokens/plugin.ts';
export { admin } from './admin/plugin.ts';
export type { AccountsOptions } from './accounts/options.ts';
export type { SocialOptions } from './social/options.ts';
export type { PipelineOptions } from './pipeline/options.ts';
export type { MagicLinkOptions } from './magic-link/options.ts';
export type { FactorsOptions } from './factors/options.ts';
export type { SudoOptions } from './sudo/options.ts';
export type { AccountCenterOptions } from './account-center/options.ts';
export type { PasswordOptions } from './password/plugin.ts';
export type { TokensOptions } from './tokens/plugin.ts';
export type { ServiceTokensOptions } from './service-tokens/options.ts';
export type { AdminOptions } from './admin/options.ts';
