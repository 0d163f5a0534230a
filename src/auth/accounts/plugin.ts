import { definePlugin } from '../../plugin.ts';
import { accountsRoutes } from './routes.ts';

/** Home page, registration, password sign-in, sign-out, forgotten and reset passwords. */
export const accountsPlugin = definePlugin({ name: 'accounts', routes: accountsRoutes });
