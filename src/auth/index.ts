import type { CitadelPlugin } from '../plugin.ts';
import { accountsPlugin } from './accounts/plugin.ts';
import { tokensPlugin } from './tokens/plugin.ts';
import { socialPlugin } from './social/plugin.ts';
import { passwordPlugin } from './password/plugin.ts';
import { pipelinePlugin } from './pipeline/plugin.ts';
import { magicLinkPlugin } from './magic-link/plugin.ts';
import { factorsPlugin } from './factors/plugin.ts';
import { sudoPlugin } from './sudo/plugin.ts';

/**
 * The built-in capabilities, each a plugin with its routes, pages, tables and actions. An
 * application's own plugins (`plugins: [...]` in the config) are registered after these.
 */
export const defaultPlugins: readonly CitadelPlugin[] = [
  accountsPlugin,
  tokensPlugin,
  socialPlugin,
  passwordPlugin,
  pipelinePlugin,
  magicLinkPlugin,
  factorsPlugin,
  sudoPlugin,
];
