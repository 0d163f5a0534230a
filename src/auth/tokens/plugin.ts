import { definePlugin } from '../../plugin.ts';
import { tokenEndpoints } from './routes.ts';

/** Personal access tokens: the token page and API (their table and verification are core). */
export const tokensPlugin = definePlugin({
  name: 'tokens',
  // A browser session creates a token in sudo mode.
  dependencies: ['sudo'],
  endpoints: tokenEndpoints,
});
