import { definePlugin } from '../../plugin.ts';
import { tokensRoutes } from './routes.ts';

/** Personal access tokens: the token page and API (their table and verification are core). */
export const tokensPlugin = definePlugin({ name: 'tokens', routes: tokensRoutes });
