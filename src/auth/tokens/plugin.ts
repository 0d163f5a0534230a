import { definePlugin } from '../../plugin-api.ts';
import { tokenEndpoints } from './routes.ts';
import { tokensMessages } from './messages/index.ts';

/** `tokens()` takes no options (verifying a token is the core's; see `limits.tokenLastUsedInterval`). */
export type TokensOptions = Record<string, never>;

/** Personal access tokens: the token page and API (their table and verification are core). */
export function tokens(options: TokensOptions = {}) {
  return definePlugin({
    id: 'tokens',
    // A browser session creates a token in sudo mode.
    dependencies: ['sudo'],
    options,
    endpoints: tokenEndpoints,
    messages: tokensMessages,
  });
}
